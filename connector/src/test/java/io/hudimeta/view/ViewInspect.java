package io.hudimeta.view;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.table.CompactionOperation;
import io.hudimeta.table.FileGroup;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A table's view three ways, for tests comparing them: the JVM's synced view (incremental since its first
 * build), a view built from scratch from the metadata table, and one built from a storage listing.
 */
public final class ViewInspect {

  private ViewInspect() {}

  /**
   * JSON {"incremental", "fromMetadata", "fromStorage": {partition: {asOf ("latest" or a time): [file groups]},
   * "pendingCompactions": [...], "replaced": {...}}, "counters": the synced view's counters, "source": its source}.
   */
  public static String compare(Configuration conf, String basePath, String[] asOfs) throws IOException {
    Path base = new Path(basePath);
    FileSystem fs = base.getFileSystem(conf);
    Path qualified = fs.makeQualified(base);
    SyncedView synced = TableViews.synced(fs, base, ViewStorageConfig.DEFAULT);
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.set("incremental", describe(synced, asOfs));
    try (SyncedView fresh = new SyncedView(fs, qualified, ViewStorageConfig.DEFAULT)) {
      root.set("fromMetadata", describe(fresh.sync(), asOfs));
    }
    ViewStorageConfig listing = new ViewStorageConfig(ViewStorageConfig.MEMORY, 1L << 30, "/tmp/", false);
    try (SyncedView fresh = new SyncedView(fs, qualified, listing)) {
      root.set("fromStorage", describe(fresh.sync(), asOfs));
    }
    ObjectNode counters = root.putObject("counters");
    synced.counters().forEach(counters::put);
    root.put("source", synced.source());
    return root.toString();
  }

  private static ObjectNode describe(SyncedView view, String[] asOfs) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    List<String> partitions = view.partitions();
    FileSystemView fsView = view.view(partitions);
    ObjectNode byPartition = out.putObject("partitions");
    for (String partition : partitions) {
      ObjectNode p = JsonNodeFactory.instance.objectNode();
      boolean any = false;
      for (String asOf : asOfs.length == 0 ? new String[] { null } : withLatest(asOfs)) {
        ArrayNode groups = p.putArray(asOf == null ? "latest" : asOf);
        for (FileGroup g : fsView.fileGroups(partition, asOf)) {
          ArrayNode slices = groups.addObject().put("fileId", g.fileId()).putArray("slices");
          for (FileSlice s : g.slices()) {
            ObjectNode sn = slices.addObject();
            sn.put("baseInstant", s.baseInstantTime());
            sn.put("baseFile", s.baseFile() == null ? null : s.baseFile().name());
            ArrayNode logs = sn.putArray("logFiles");
            s.logFiles().forEach(l -> logs.add(l.name()));
          }
          any = true;
        }
      }
      if (any) {
        byPartition.set(partition, p); // a partition without live file groups may be listed by one source only
      }
    }
    ArrayNode pending = out.putArray("pendingCompactions");
    for (CompactionOperation op : view.pendingCompactions()) {
      pending.add(op.instantTime() + " " + op.fileGroupId());
    }
    ObjectNode replaced = out.putObject("replaced");
    Map<String, String> byId = new TreeMap<>();
    view.replacedFileGroups(null).forEach((id, t) -> byId.put(id.partitionPath() + "/" + id.fileId(), t));
    byId.forEach(replaced::put);
    return out;
  }

  private static String[] withLatest(String[] asOfs) {
    String[] all = new String[asOfs.length + 1];
    System.arraycopy(asOfs, 0, all, 1, asOfs.length);
    return all;
  }
}
