package io.hudimeta.view;

import io.hudimeta.table.FileEntry;
import io.hudimeta.table.HudiTableException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * The {@code hoodie.filesystem.view.type=SPILLABLE_DISK} store: partitions stay on the heap until their estimated size
 * reaches {@code hoodie.filesystem.view.spillable.mem}, then the least recently used ones move to a RocksDB database
 * under {@code hoodie.filesystem.view.spillable.dir}, so views of millions of file slices fit in a bounded heap.
 *
 * <p>The database lives in a fresh subdirectory, created only at the first spill (most views never spill) and
 * deleted by {@link #close()}. Spilled partitions are not promoted back on read: a scan over every partition would
 * otherwise rewrite the database on each step. Only the names of spilled partitions stay on the heap, so {@link
 * #partitions()} and {@link #contains} need no disk read. Not thread-safe, like the interface.
 */
public final class SpillableFileStore implements PartitionFileStore {

  private static final String DIR_OPTION = ViewStorageConfig.SPILLABLE_DIR;
  private static final String MEM_OPTION = ViewStorageConfig.SPILLABLE_MEM;

  // rough heap costs: a FileEntry with its String and list slot; a map entry with its key and list
  private static final long ENTRY_OVERHEAD = 64;
  private static final long PARTITION_OVERHEAD = 96;

  private static final class Native {

    static {
      RocksDB.loadLibrary();
    }

    static void load() {}
  }

  private final long maxMemoryBytes;
  private final String spillDir;
  /** Heap tier in access order, so the eldest entry is the least recently used one. */
  private final LinkedHashMap<String, Resident> heap = new LinkedHashMap<>(16, 0.75f, true);

  private final Set<String> spilled = new HashSet<>();
  private long memoryBytes;

  private Path dbDir;
  private RocksDB db;
  private Options options;
  private WriteOptions writeOptions;

  private record Resident(List<FileEntry> files, long bytes) {}

  public SpillableFileStore(long maxMemoryBytes, String spillDir) {
    if (maxMemoryBytes < 0) {
      throw new HudiTableException(MEM_OPTION + " must not be negative, got " + maxMemoryBytes);
    }
    this.maxMemoryBytes = maxMemoryBytes;
    this.spillDir = spillDir;
  }

  @Override
  public List<FileEntry> get(String partition) {
    Resident resident = heap.get(partition);
    if (resident != null) {
      return resident.files();
    }
    if (!spilled.contains(partition)) {
      return null;
    }
    try {
      byte[] value = db.get(key(partition));
      if (value == null) {
        throw new HudiTableException("Partition '" + partition + "' is missing from the spill database " + dbDir);
      }
      return decode(value);
    } catch (RocksDBException e) {
      throw failure("read partition '" + partition + "' from", e);
    }
  }

  @Override
  public void put(String partition, List<FileEntry> entries) {
    remove(partition);
    List<FileEntry> files = List.copyOf(entries);
    long bytes = estimate(partition, files);
    if (bytes > maxMemoryBytes) {
      spill(partition, files);
      return;
    }
    Iterator<Map.Entry<String, Resident>> eldest = heap.entrySet().iterator();
    while (memoryBytes + bytes > maxMemoryBytes && eldest.hasNext()) {
      Map.Entry<String, Resident> e = eldest.next();
      spill(e.getKey(), e.getValue().files());
      memoryBytes -= e.getValue().bytes();
      eldest.remove();
    }
    heap.put(partition, new Resident(files, bytes));
    memoryBytes += bytes;
  }

  @Override
  public boolean contains(String partition) {
    return heap.containsKey(partition) || spilled.contains(partition);
  }

  @Override
  public Set<String> partitions() {
    Set<String> all = new HashSet<>(heap.keySet());
    all.addAll(spilled);
    return Collections.unmodifiableSet(all);
  }

  @Override
  public void clear() {
    heap.clear();
    memoryBytes = 0;
    spilled.clear();
    closeDatabase(); // the next spill starts a fresh database
  }

  @Override
  public void close() {
    clear();
  }

  /** How many partitions live on disk now. */
  public int spilledPartitions() {
    return spilled.size();
  }

  /** The estimated heap held by the in-memory partitions, bounded by the configured maximum. */
  public long memoryBytes() {
    return memoryBytes;
  }

  private void remove(String partition) {
    Resident old = heap.remove(partition);
    if (old != null) {
      memoryBytes -= old.bytes();
    } else if (spilled.remove(partition)) {
      try {
        db.delete(writeOptions, key(partition));
      } catch (RocksDBException e) {
        throw failure("delete partition '" + partition + "' from", e);
      }
    }
  }

  private void spill(String partition, List<FileEntry> files) {
    open();
    try {
      db.put(writeOptions, key(partition), encode(files));
    } catch (RocksDBException e) {
      throw failure("spill partition '" + partition + "' to", e);
    }
    spilled.add(partition);
  }

  private void open() {
    if (db != null) {
      return;
    }
    Native.load();
    Path dir = Paths.get(spillDir, "hudi-meta-view-" + UUID.randomUUID());
    try {
      Files.createDirectories(dir);
    } catch (IOException | RuntimeException e) {
      String why = "Cannot create the file-system view spill directory %s (%s); set %s to a writable local directory";
      throw new HudiTableException(String.format(why, dir, e, DIR_OPTION), e);
    }
    dbDir = dir;
    options = new Options().setCreateIfMissing(true);
    // a throwaway cache: nothing to recover after a crash, so no write-ahead log
    writeOptions = new WriteOptions().setDisableWAL(true);
    try {
      db = RocksDB.open(options, dir.toString());
    } catch (RocksDBException e) {
      HudiTableException failure = failure("open", e);
      closeDatabase();
      throw failure;
    }
  }

  private HudiTableException failure(String action, RocksDBException e) {
    String why = "Cannot %s the file-system view spill database in %s (%s); set %s to a writable local directory";
    return new HudiTableException(String.format(why, action, dbDir, e.getMessage(), DIR_OPTION), e);
  }

  private void closeDatabase() {
    if (db != null) {
      db.close();
      db = null;
    }
    if (writeOptions != null) {
      writeOptions.close();
      writeOptions = null;
    }
    if (options != null) {
      options.close();
      options = null;
    }
    if (dbDir != null) {
      deleteTree(dbDir);
      dbDir = null;
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      // best effort: a leftover directory under the spill dir does no harm to correctness
    }
  }

  private static long estimate(String partition, List<FileEntry> files) {
    long bytes = PARTITION_OVERHEAD + 2L * partition.length() + 8L * files.size();
    for (FileEntry f : files) {
      bytes += ENTRY_OVERHEAD + 2L * f.name().length();
    }
    return bytes;
  }

  private static byte[] key(String partition) {
    return partition.getBytes(StandardCharsets.UTF_8);
  }

  /** Count, then each entry's name (modified UTF-8) and size. */
  private static byte[] encode(List<FileEntry> files) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + files.size() * 48);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(files.size());
      for (FileEntry f : files) {
        out.writeUTF(f.name());
        out.writeLong(f.size());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory streams do not fail
    }
    return bytes.toByteArray();
  }

  private static List<FileEntry> decode(byte[] value) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
      int count = in.readInt();
      List<FileEntry> files = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        files.add(new FileEntry(in.readUTF(), in.readLong()));
      }
      return Collections.unmodifiableList(files);
    } catch (IOException e) {
      throw new HudiTableException("Corrupt partition entry in the file-system view spill database", e);
    }
  }
}
