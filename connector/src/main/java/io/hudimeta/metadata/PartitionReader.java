package io.hudimeta.metadata;

import io.hudimeta.table.FileSlice;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/** One MDT partition of a {@link MetadataTable}: its latest slices, those opened so far, how keys route to them. */
final class PartitionReader {

  private static final Pattern INDEXED_FILE_ID = Pattern.compile("(.*?)(\\d{4})-\\d+");

  final String name;
  final Path dir;
  final List<FileSlice> slices;
  /** The statuses of the partition's files the listing gave, by name: opening them sends no HEAD. */
  final Map<String, FileStatus> listed;
  /** Slices opened so far, by position in {@link #slices}. */
  final SliceReader[] opened;
  /** Positions in {@link #slices} by file-group index when keys route by hash (record_index), else null. */
  final int[] byIndex;

  PartitionReader(String name, Path dir, List<FileSlice> slices, Map<String, FileStatus> listed) {
    this.name = name;
    this.dir = dir;
    this.slices = Collections.unmodifiableList(slices);
    this.listed = listed;
    this.opened = new SliceReader[slices.size()];
    this.byIndex = name.equals(MetadataTable.RECORD_INDEX) ? indexPositions(slices) : null;
  }

  private static int[] indexPositions(List<FileSlice> slices) {
    int[] out = new int[slices.size()];
    Arrays.fill(out, -1);
    for (int position = 0; position < slices.size(); position++) {
      Matcher m = INDEXED_FILE_ID.matcher(slices.get(position).fileId());
      if (!m.matches()) {
        return null;
      }
      int index = Integer.parseInt(m.group(2));
      if (index >= out.length || out[index] >= 0) {
        return null;
      }
      out[index] = position;
    }
    return out;
  }

  /** Keys by the position of the slice that may hold them: one by hash when routable, else all. */
  Map<Integer, List<String>> route(Collection<String> keys) {
    boolean routable = byIndex != null && byIndex.length > 0;
    return PartitionSlices.route(keys, slices.size(), routable ? index -> byIndex[index] : null);
  }

  void close() {
    for (SliceReader s : opened) {
      if (s != null) {
        s.close();
      }
    }
  }
}
