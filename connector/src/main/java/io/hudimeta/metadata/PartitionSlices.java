package io.hudimeta.metadata;

import io.hudimeta.table.FileSlice;
import java.io.Closeable;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;
import java.util.function.IntUnaryOperator;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The latest file slices of one metadata-table partition and the rule for their log blocks, as the
 * driver resolved them ({@link MetadataTable#partitionSlices}): small and serializable, so a task
 * can open just the file group its keys hash to and read it exactly as the driver would.
 */
public final class PartitionSlices implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String dir;
  private final List<FileSlice> slices;
  private final boolean routesByHash;
  private final InstantValidity validity;
  private final boolean logNamesWriter;

  PartitionSlices(
    Path dir,
    List<FileSlice> slices,
    boolean routesByHash,
    InstantValidity validity,
    boolean logNamesWriter
  ) {
    this.dir = dir.toString();
    this.slices = List.copyOf(slices);
    this.routesByHash = routesByHash;
    this.validity = validity;
    this.logNamesWriter = logNamesWriter;
  }

  /** The MDT partition directory. */
  public Path dir() {
    return new Path(dir);
  }

  /** Slices in file-group-index order when {@link #routesByHash()}, else by file id. */
  public List<FileSlice> slices() {
    return slices;
  }

  public int fileGroupCount() {
    return slices.size();
  }

  /**
   * Whether each key lives in the slice at position {@link MetadataKeys#fileGroupIndex}(key, count)
   * (record_index with file ids {@code <prefix><4-digit index>-<n>}); otherwise a key may be in any slice.
   */
  public boolean routesByHash() {
    return routesByHash;
  }

  /** Keys by the position of the slice that may hold them: one by hash when {@link #routesByHash()}, else all. */
  public Map<Integer, List<String>> route(Collection<String> keys) {
    return route(keys, slices.size(), routesByHash ? IntUnaryOperator.identity() : null);
  }

  /** Hands {@code to} the position of each slice that may hold the key whose UTF-8 bytes these are. */
  public void route(byte[] utf8, IntConsumer to) {
    if (routesByHash) {
      to.accept(MetadataKeys.fileGroupIndex(utf8, slices.size()));
    } else {
      for (int at = 0; at < slices.size(); at++) {
        to.accept(at);
      }
    }
  }

  /**
   * Keys by the position of the slice that may hold them, among {@code count} slices: the slice at
   * {@code position(file-group index)} when keys route by hash, else every slice ({@code position} null).
   */
  static Map<Integer, List<String>> route(Collection<String> keys, int count, IntUnaryOperator position) {
    Map<Integer, List<String>> out = new TreeMap<>();
    for (String key : keys) {
      if (position != null) {
        int at = position.applyAsInt(MetadataKeys.fileGroupIndex(key, count));
        out.computeIfAbsent(at, k -> new ArrayList<>()).add(key);
      } else {
        for (int at = 0; at < count; at++) {
          out.computeIfAbsent(at, k -> new ArrayList<>()).add(key);
        }
      }
    }
    return out;
  }

  /**
   * Merged, present records of exactly these keys, by key: each slice their hash routes to opened and searched
   * on its own thread (the slices are independent files; a random batch of keys touches every block of each).
   */
  public Map<String, MetadataRecord> lookup(FileSystem fs, Collection<String> keys) {
    Map<String, MetadataRecord> out = new ConcurrentHashMap<>();
    route(keys)
      .entrySet()
      .parallelStream()
      .forEach(group -> {
        try (Reader reader = open(fs, group.getKey())) {
          out.putAll(reader.lookup(group.getValue()));
        }
      });
    return out;
  }

  /** Opens the slice at {@code position} (its base HFile and usable log blocks); decoders are its own. */
  public Reader open(FileSystem fs, int position) {
    return new Reader(
      SliceReader.openChecked(fs, dir(), slices.get(position), Map.of(), validity, logNamesWriter, new HashMap<>())
    );
  }

  /** One opened slice; not thread-safe. */
  public static final class Reader implements Closeable {

    private final SliceReader slice;

    private Reader(SliceReader slice) {
      this.slice = slice;
    }

    /** Merged, present records of exactly these keys (duplicates allowed) found in this slice, by key. */
    public Map<String, MetadataRecord> lookup(Collection<String> keys) {
      Map<String, MetadataRecord> merged = new HashMap<>((keys.size() * 4) / 3 + 1);
      slice.collectKeys(keys, merged);
      merged.values().removeIf(MetadataRecord::isDeleted);
      return merged;
    }

    /**
     * Visits what the slice holds for {@code sorted} (UTF-8 keys, distinct, in row order:
     * {@link io.hudimeta.hfile.HFileReader#sortedDistinct}), each record decoded with top-level {@code field}
     * alone into the record before it: the visitor takes what it needs during the call.
     */
    public void visit(byte[][] sorted, String field, KeyVisitor visitor) {
      slice.visitKeys(sorted, field, visitor);
    }

    @Override
    public void close() {
      slice.close();
    }
  }
}
