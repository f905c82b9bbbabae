package io.hudimeta.table;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Lists a table on storage, the way Hudi does without a metadata table: a partition is a directory
 * holding a {@code .hoodie_partition_metadata} file; the walk skips hidden directories ({@code .hoodie},
 * {@code .temp}...) and does not descend into partitions. A non-partitioned table's partition is the
 * base path itself, partition path "".
 */
public final class StorageListing implements FileListing {

  private final FileSystem fs;
  private final Path basePath;
  private volatile Map<String, List<FileEntry>> discovered; // null until a walk is needed

  private StorageListing(FileSystem fs, Path basePath) {
    this.fs = fs;
    this.basePath = basePath;
  }

  /** Walks the table once; the files seen on the way are kept, so {@link #files} does not list again. */
  public static StorageListing list(FileSystem fs, Path basePath) {
    StorageListing listing = lazy(fs, basePath);
    listing.discovered();
    return listing;
  }

  /**
   * A listing that walks nothing up front: {@link #files} lists just the partitions asked for, and
   * only {@link #partitions} or {@link #all} walk the table (once).
   */
  public static StorageListing lazy(FileSystem fs, Path basePath) {
    return new StorageListing(fs, basePath);
  }

  private synchronized Map<String, List<FileEntry>> discovered() {
    if (discovered == null) {
      Map<String, List<FileEntry>> found = new TreeMap<>();
      walk(fs, basePath, "", found);
      discovered = found;
    }
    return discovered;
  }

  private static void walk(FileSystem fs, Path dir, String relative, Map<String, List<FileEntry>> found) {
    FileStatus[] statuses = listStatus(fs, dir);
    List<FileEntry> files = new ArrayList<>();
    List<FileStatus> subdirs = new ArrayList<>();
    boolean isPartition = false;
    for (FileStatus status : statuses) {
      String name = status.getPath().getName();
      if (status.isDirectory()) {
        if (!name.startsWith(".")) {
          subdirs.add(status);
        }
      } else {
        isPartition |= FileNames.isPartitionMetafile(name);
        files.add(new FileEntry(name, status.getLen()));
      }
    }
    if (isPartition) {
      found.put(relative, Collections.unmodifiableList(files));
      return;
    }
    for (FileStatus sub : subdirs) {
      String name = sub.getPath().getName();
      walk(fs, sub.getPath(), relative.isEmpty() ? name : relative + "/" + name, found);
    }
  }

  private static FileStatus[] listStatus(FileSystem fs, Path dir) {
    try {
      return fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return new FileStatus[0];
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<String> partitions() {
    return new ArrayList<>(discovered().keySet());
  }

  @Override
  public Map<String, List<FileEntry>> files(Collection<String> partitions) {
    Map<String, List<FileEntry>> walked = discovered;
    Map<String, List<FileEntry>> out = new LinkedHashMap<>();
    for (String p : partitions) {
      List<FileEntry> known = walked == null ? null : walked.get(p);
      out.put(p, known != null ? known : listPartition(p));
    }
    return out;
  }

  private List<FileEntry> listPartition(String partition) {
    Path dir = partition.isEmpty() ? basePath : new Path(basePath, partition);
    List<FileEntry> files = new ArrayList<>();
    for (FileStatus status : listStatus(fs, dir)) {
      if (status.isFile()) {
        files.add(new FileEntry(status.getPath().getName(), status.getLen()));
      }
    }
    return files;
  }

  /** Every discovered partition with its files. */
  public Map<String, List<FileEntry>> all() {
    return Collections.unmodifiableMap(discovered());
  }
}
