package io.hudimeta.spark.plan;

import io.hudimeta.spark.options.ReadOptions;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** Plans a scan over a given file system and describes it (for tests and diagnostics, via py4j). */
public final class PlanInspect {

  private PlanInspect() {}

  /** The scan's plan statistics, e.g. "listing=metadata partitions=3/3 fileSlices=9 files=11". */
  public static String plan(FileSystem fs, Map<String, String> options) {
    TableSnapshot snapshot = TableSnapshot.load(ReadOptions.parse(new CaseInsensitiveStringMap(options)), fs);
    snapshot.plan(new Filter[0]);
    return snapshot.planStats();
  }
}
