package io.hudimeta.spark.pruning;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.metadata.ColumnStat;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.plan.SliceSplit;
import io.hudimeta.spark.plan.TableSnapshot;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Entry points into data skipping for py4j callers (tests, diagnostics); not used by the reader.
 */
public final class SkippingInspect {

  private SkippingInspect() {}

  /**
   * The plan of a scan without filters, as JSON: {@code {"pruning": "...", "slices": [{"partition",
   * "fileId", "baseFile" (name or null), "logFiles": [names]}]}} (the files each slice reads).
   */
  public static String slicesJson(FileSystem fs, Map<String, String> options) {
    TableSnapshot snapshot = TableSnapshot.load(ReadOptions.parse(new CaseInsensitiveStringMap(options)), fs);
    List<SliceSplit> splits = snapshot.plan(new Filter[0]);
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    ObjectNode out = nodes.objectNode();
    out.put("pruning", snapshot.pruningStats().describe());
    ArrayNode slices = out.putArray("slices");
    for (SliceSplit s : splits) {
      ObjectNode o = slices.addObject();
      o.put("partition", s.partitionPath());
      o.put("fileId", s.fileId());
      o.put("baseFile", s.baseFile() == null ? null : name(s.baseFile()));
      ArrayNode logs = o.putArray("logFiles");
      for (String log : s.logFiles()) {
        logs.add(name(log));
      }
    }
    return out.toString();
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * How a filter fares over rows described by per-column stats: 1 = some row may make it TRUE,
   * 2 = some row may make it FALSE, 3 = both, 0 = neither (no row, or only NULL results).
   */
  public static int eval(Filter filter, StructType schema, Map<String, ColumnStat> stats) {
    return DataSkipping.eval(filter, stats, schema);
  }
}
