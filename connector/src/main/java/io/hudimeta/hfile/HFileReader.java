package io.hudimeta.hfile;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Reader of HFile v3 files as Hudi's metadata table writes them: HBase-written (Hudi 1.0, CRC32C
 * checksums, full KeyValue index keys with shortened "fake" keys) and Hudi-native (Hudi 1.1, no
 * checksums, row-only index keys). Opening reads only the trailer and the load-on-open section;
 * data, leaf index and meta blocks are fetched on demand with positioned reads. Decoded data blocks
 * of files in storage are kept in the process-wide {@link BlockCache}; index blocks, and data blocks
 * of in-memory files (log blocks) or with that cache off, in small LRU caches of this reader.
 *
 * <p>Cells are ordered by row bytes, unsigned lexicographic. Rows may repeat (non-unique files);
 * exact lookups return the first cell of a row, scans return all of them.
 *
 * <p>Corruption is reported as {@link CorruptHFileException} (unchecked), I/O failures as
 * {@link IOException}; iterators, which cannot throw it, wrap the latter in {@link UncheckedIOException}.
 */
public final class HFileReader implements Closeable {

  private static final int DATA_BLOCK_CACHE = 8;
  private static final int INDEX_BLOCK_CACHE = 32;
  /** Bits of a key's index in {@link #sortedByPrefix}'s longs: the rest hold its first 5 bytes. */
  private static final int PREFIX_SORT_INDEX_BITS = 24;
  private static final String KEY_VALUE_VERSION = "KEY_VALUE_VERSION";
  private static final String MAX_TAGS_LEN = "hfile.MAX_TAGS_LEN";
  /** Mid-key metadata after the root entries of a multi-level data index: leaf offset, size, entry. */
  private static final int MID_KEY_SIZE = 8 + 4 + 4;

  private final ByteSource source;
  private final Trailer trailer;
  private final BlockReader blocks;
  private final BlockIndex dataIndex;
  private final IndexNode metaIndex;
  private final Map<String, byte[]> fileInfo;
  private final boolean cellsHaveTags;
  private final boolean cellsHaveMemstoreTs;
  private final LruCache<DataBlock> dataBlocks = new LruCache<>(DATA_BLOCK_CACHE);
  private final LruCache<IndexNode> indexBlocks = new LruCache<>(INDEX_BLOCK_CACHE);

  /** Opens an HFile on any Hadoop file system. */
  public static HFileReader open(FileSystem fs, Path path) throws IOException {
    return open(ByteSource.ofHadoop(fs, path));
  }

  /** Opens an HFile whose status a listing gave (its length and modification time). */
  public static HFileReader open(FileSystem fs, FileStatus status) throws IOException {
    return open(ByteSource.ofHadoop(fs, status));
  }

  private static HFileReader open(ByteSource source) throws IOException {
    try {
      return new HFileReader(source);
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
  }

  /** Reads an HFile held in memory, e.g. the content of an HFile data block of a log file. */
  public static HFileReader fromBytes(byte[] bytes) throws IOException {
    return fromBytes(bytes, "in-memory HFile (" + bytes.length + " bytes)");
  }

  /** Same, with a description of where the bytes came from, used in error messages. */
  public static HFileReader fromBytes(byte[] bytes, String description) throws IOException {
    return new HFileReader(ByteSource.ofBytes(bytes, description));
  }

  private HFileReader(ByteSource source) throws IOException {
    this.source = source;
    long length = source.length();
    if (length < Trailer.SIZE) {
      throw new CorruptHFileException(
        "not an HFile: " + source.name() + " has " + length + " bytes, fewer than the 4096-byte trailer"
      );
    }
    byte[] tail = new byte[Trailer.SIZE];
    source.readFully(length - Trailer.SIZE, tail, 0, Trailer.SIZE);
    this.trailer = Trailer.parse(tail, source.name());
    this.blocks = new BlockReader(source, trailer.codec());

    long loadOnOpen = trailer.loadOnOpenOffset();
    long sectionEnd = length - Trailer.SIZE;
    if (
      loadOnOpen < 0 ||
      loadOnOpen > sectionEnd ||
      trailer.fileInfoOffset() < loadOnOpen ||
      trailer.fileInfoOffset() >= sectionEnd
    ) {
      throw new CorruptHFileException(
        "trailer of " +
          source.name() +
          " points outside the file (load-on-open at " +
          loadOnOpen +
          ", file info at " +
          trailer.fileInfoOffset() +
          ", trailer at " +
          sectionEnd +
          ")"
      );
    }
    byte[] section = new byte[(int) (sectionEnd - loadOnOpen)];
    source.readFully(loadOnOpen, section, 0, section.length);

    BlockReader.Block rootBlock = blocks.parse(section, 0, loadOnOpen, BlockType.ROOT_INDEX);
    IndexNode root = IndexNode.parseRoot(
      rootBlock.payload(),
      trailer.dataIndexCount(),
      trailer.dataIndexLevels() > 1 ? MID_KEY_SIZE : 0,
      true,
      "root data index of " + source.name()
    );
    int metaPos = rootBlock.onDiskSize();
    BlockReader.Block metaBlock = blocks.parse(section, metaPos, loadOnOpen + metaPos, BlockType.ROOT_INDEX);
    this.metaIndex = IndexNode.parseRoot(
      metaBlock.payload(),
      trailer.metaIndexCount(),
      0,
      false,
      "meta index of " + source.name()
    );
    int infoPos = (int) (trailer.fileInfoOffset() - loadOnOpen);
    this.fileInfo = FileInfo.parse(
      blocks.parse(section, infoPos, trailer.fileInfoOffset(), BlockType.FILE_INFO).payload(),
      "file info of " + source.name()
    );

    this.dataIndex = new BlockIndex(root, trailer.dataIndexLevels(), this::indexNode);
    this.cellsHaveTags = fileInfo.containsKey(MAX_TAGS_LEN);
    byte[] kvVersion = fileInfo.get(KEY_VALUE_VERSION);
    this.cellsHaveMemstoreTs = kvVersion != null && kvVersion.length == 4 && Bytes.readInt(kvVersion, 0) == 1;
  }

  /** Number of cells in the file, from the trailer. */
  public long entryCount() {
    return trailer.entryCount();
  }

  public Trailer trailer() {
    return trailer;
  }

  /** The file-info map (raw value bytes; e.g. {@code schema} is UTF-8, {@code KEY_VALUE_VERSION} an int32). */
  public Map<String, byte[]> fileInfo() {
    return fileInfo;
  }

  /** The uncompressed payload of the named meta block (Hudi base files: {@code bloomFilter}). */
  public Optional<byte[]> metaBlock(String name) throws IOException {
    int slot = metaIndex.find(name.getBytes(StandardCharsets.UTF_8));
    if (slot < 0) {
      return Optional.empty();
    }
    return Optional.of(blocks.read(metaIndex.offset(slot), metaIndex.onDiskSize(slot), BlockType.META).payload());
  }

  /**
   * All cells in file order. A scan that ends with another number of cells than the trailer counts
   * fails: in files without checksums (Hudi's native writer) that is how a corrupt index shows.
   */
  public Iterator<Cell> scan() {
    return iterate(() -> CellCursor.atStart(dataIndex, this::dataBlock), cursor -> true, trailer.entryCount());
  }

  /** The first cell whose row equals row, or empty when the row is absent. */
  public Optional<Cell> seek(byte[] row) throws IOException {
    CellCursor cursor = CellCursor.atOrAfter(dataIndex, this::dataBlock, row);
    return cursor.valid() && cursor.compareRow(row) == 0 ? Optional.of(cursor.cell()) : Optional.empty();
  }

  public Optional<Cell> seek(String row) throws IOException {
    return seek(utf8(row));
  }

  /** All cells whose row starts with prefix, in file order. */
  public Iterator<Cell> scanPrefix(byte[] prefix) {
    return iterate(() -> CellCursor.atOrAfter(dataIndex, this::dataBlock, prefix), c -> c.rowStartsWith(prefix), -1);
  }

  public Iterator<Cell> scanPrefix(String prefix) {
    return scanPrefix(utf8(prefix));
  }

  /** What {@link #seekAll} finds: a value, valid only during the call. */
  @FunctionalInterface
  public interface ValueVisitor {
    /** Key {@code key} (its index among the keys sought) has a cell whose value is {@code block[offset, offset + length)}. */
    void value(int key, byte[] block, int offset, int length) throws IOException;
  }

  /**
   * Looks up many keys at once (duplicates allowed). Returns the first cell of each present key, in row
   * order; absent keys are not in the map.
   */
  public Map<String, Cell> getAll(Collection<String> keys) throws IOException {
    byte[][] sorted = sortedDistinct(keys);
    Map<String, Cell> found = new LinkedHashMap<>();
    seekAll(sorted, (i, block, offset, length) ->
      found.put(
        new String(sorted[i], StandardCharsets.UTF_8),
        new Cell(sorted[i], Arrays.copyOfRange(block, offset, offset + length))
      )
    );
    return found;
  }

  /**
   * Visits the value of the first cell of each present key of {@code sorted} (UTF-8 keys, distinct, in row
   * order: {@link #sortedDistinct}), in that order, without copying it: each key is sought from where the
   * previous one left the cursor when it lies in the same block.
   */
  public void seekAll(byte[][] sorted, ValueVisitor visitor) throws IOException {
    CellCursor cursor = null;
    for (int i = 0; i < sorted.length; i++) {
      byte[] key = sorted[i];
      // sorted keys mostly land in the block the previous one did: no index search, no cache lookup
      if (cursor == null || !cursor.forwardInBlock(key)) {
        cursor = CellCursor.atOrAfter(dataIndex, this::dataBlock, key);
      }
      if (cursor.valid() && cursor.compareRow(key) == 0) {
        cursor.visitValue(i, visitor);
      }
    }
  }

  /** The keys' UTF-8 bytes in row order, each once: what {@link #seekAll} takes. */
  public static byte[][] sortedDistinct(Collection<String> keys) {
    return sortedDistinct(utf8(keys));
  }

  /** {@code keys} (UTF-8) sorted in row order, each once (a new array, or {@code keys} sorted). */
  public static byte[][] sortedDistinct(byte[][] keys) {
    if (keys.length < 1 << PREFIX_SORT_INDEX_BITS) {
      keys = sortedByPrefix(keys);
    } else {
      Arrays.sort(keys, Bytes.UNSIGNED);
    }
    int kept = 0;
    for (byte[] key : keys) {
      if (kept == 0 || !Arrays.equals(keys[kept - 1], key)) {
        keys[kept++] = key;
      }
    }
    return kept == keys.length ? keys : Arrays.copyOf(keys, kept);
  }

  /**
   * All cells whose row starts with any of the prefixes, in row order, each cell once (a prefix
   * that extends another listed prefix adds nothing).
   */
  public List<Cell> scanPrefixes(Collection<String> prefixes) throws IOException {
    List<Cell> out = new ArrayList<>();
    byte[] covering = null;
    for (byte[] prefix : sortedDistinct(prefixes)) {
      if (covering != null && Bytes.startsWith(prefix, 0, prefix.length, covering)) {
        continue;
      }
      covering = prefix;
      CellCursor cursor = CellCursor.atOrAfter(dataIndex, this::dataBlock, prefix);
      for (; cursor.valid() && cursor.rowStartsWith(prefix); cursor.next()) {
        out.add(cursor.cell());
      }
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    source.close();
  }

  @Override
  public String toString() {
    return "HFileReader[" + source.name() + ", " + entryCount() + " entries]";
  }

  /**
   * The data block an index entry points at. Its rows must lie between the entry's key and the
   * next entry's: in files without checksums, an entry pointing at another block fails here.
   */
  private DataBlock dataBlock(long offset, int onDiskSize, byte[] lowerRow, byte[] upperRow) throws IOException {
    DataBlock block = dataBlock(offset, onDiskSize);
    int last = block.count() - 1;
    if (
      last >= 0 && (block.compareRow(0, lowerRow) < 0 || (upperRow != null && block.compareRow(last, upperRow) > 0))
    ) {
      throw new CorruptHFileException(
        "data block at offset " + offset + " of " + source.name() + " holds rows outside the range of its index entry"
      );
    }
    return block;
  }

  /** From the process-wide {@link BlockCache} for files in storage, else from this reader's own few blocks. */
  private DataBlock dataBlock(long offset, int onDiskSize) throws IOException {
    LruCache.Loader<DataBlock> load = () -> readDataBlock(offset, onDiskSize);
    BlockCache shared = BlockCache.shared();
    if (source.modificationTime() >= 0 && shared.enabled()) {
      return shared.get(new BlockCache.Key(source.name(), source.length(), source.modificationTime(), offset), load);
    }
    return dataBlocks.get(offset, load);
  }

  private DataBlock readDataBlock(long offset, int onDiskSize) throws IOException {
    BlockReader.Block block = blocks.read(offset, onDiskSize, BlockType.DATA);
    return DataBlock.parse(
      block.payload(),
      cellsHaveTags,
      cellsHaveMemstoreTs,
      "data block at offset " + offset + " of " + source.name()
    );
  }

  private IndexNode indexNode(long offset, int onDiskSize, BlockType type) throws IOException {
    return indexBlocks.get(offset, () -> {
      String where = type.magic() + " block at offset " + offset + " of " + source.name();
      IndexNode node = IndexNode.parseNonRoot(blocks.read(offset, onDiskSize, type).payload(), where);
      if (node.size() == 0) {
        throw new CorruptHFileException("empty " + where);
      }
      return node;
    });
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code keys} in row order: one primitive sort of their first 5 bytes, each packed with its index in a long
   * (a comparator sort of the arrays took a tenth of a record-index lookup), then each run of keys sharing the
   * 5 bytes sorted by comparison.
   */
  private static byte[][] sortedByPrefix(byte[][] keys) {
    long[] packed = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      long prefix = Bytes.head(keys[i], 0, keys[i].length) >>> PREFIX_SORT_INDEX_BITS;
      // the sign bit flipped: a signed sort then orders the prefixes as unsigned
      packed[i] = ((prefix << PREFIX_SORT_INDEX_BITS) | i) ^ Long.MIN_VALUE;
    }
    Arrays.sort(packed);
    long mask = (1L << PREFIX_SORT_INDEX_BITS) - 1;
    byte[][] sorted = new byte[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      sorted[i] = keys[(int) (packed[i] & mask)];
    }
    for (int from = 0, to; from < keys.length; from = to) {
      to = from + 1;
      while (to < keys.length && packed[to] >>> PREFIX_SORT_INDEX_BITS == packed[from] >>> PREFIX_SORT_INDEX_BITS) {
        to++;
      }
      if (to - from > 1) {
        Arrays.sort(sorted, from, to, Bytes.UNSIGNED);
      }
    }
    return sorted;
  }

  /** The keys' UTF-8 bytes, in the collection's order. */
  private static byte[][] utf8(Collection<String> keys) {
    byte[][] bytes = new byte[keys.size()][];
    int i = 0;
    for (String key : keys) {
      bytes[i++] = utf8(key);
    }
    return bytes;
  }

  private interface CursorFactory {
    CellCursor create() throws IOException;
  }

  /**
   * Lazily positions a cursor, then yields cells while the condition holds; a whole-file scan
   * ({@code expected} >= 0) checks the number of cells at its end.
   */
  private Iterator<Cell> iterate(CursorFactory factory, Predicate<CellCursor> condition, long expected) {
    return new Iterator<>() {
      private CellCursor cursor;
      private long seen;

      @Override
      public boolean hasNext() {
        boolean more;
        try {
          if (cursor == null) {
            cursor = factory.create();
          }
          more = cursor.valid() && condition.test(cursor);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        if (!more && expected >= 0 && seen != expected) {
          throw new CorruptHFileException(
            "scan of " + source.name() + " found " + seen + " cells, its trailer counts " + expected
          );
        }
        return more;
      }

      @Override
      public Cell next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Cell cell = cursor.cell();
        cursor.next();
        seen++;
        return cell;
      }
    };
  }
}
