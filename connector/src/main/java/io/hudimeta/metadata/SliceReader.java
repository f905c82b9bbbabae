package io.hudimeta.metadata;

import io.hudimeta.hfile.Cell;
import io.hudimeta.hfile.CorruptHFileException;
import io.hudimeta.hfile.HFileReader;
import io.hudimeta.metadata.SliceBlocks.Block;
import io.hudimeta.table.CorruptTableException;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.HudiTableException;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One opened file slice of a metadata-table partition: the base HFile, then the usable log blocks
 * (rollbacks and log compactions applied) in log-file order. The one place that reads MDT file
 * slices, on the driver ({@link MetadataTable}) and on executors ({@link PartitionSlices}) alike. A
 * file that turns out damaged, when opened or later read, fails the read with a {@link
 * CorruptTableException} caused by {@link MetadataDamage} that names it ({@link SliceBlocks} says which
 * torn blocks are damage).
 */
final class SliceReader implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(SliceReader.class);

  /** Whether a log block written at an instant may be read (see {@link MetadataTable}'s class comment). */
  @FunctionalInterface
  interface BlockRule {
    boolean isValid(String instant, boolean logCompacted);
  }

  final FileSlice slice;
  private final Path dir;
  private final HFileReader base;
  private final GenericDatumReader<GenericRecord> baseDecoder;
  private final List<Block> blocks;
  /** The file a read is in, for naming it when it turns out damaged. */
  private String reading;
  /** Reused by every decode: a slice is read by one thread at a time. */
  private BinaryDecoder binary;
  /** The decoders of one field of each writer schema, for {@link #visitKeys}, and the record each decoded into last. */
  private final Map<Projection, GenericDatumReader<GenericRecord>> projections = new HashMap<>();
  private final Map<GenericDatumReader<GenericRecord>, GenericRecord> reused = new IdentityHashMap<>();

  private SliceReader(
    FileSlice slice,
    Path dir,
    HFileReader base,
    GenericDatumReader<GenericRecord> baseDecoder,
    List<Block> blocks
  ) {
    this.slice = slice;
    this.dir = dir;
    this.base = base;
    this.baseDecoder = baseDecoder;
    this.blocks = blocks;
  }

  /**
   * Opens the slice's base HFile and reads its log files ({@link SliceBlocks}).
   *
   * @param dir      the MDT partition directory
   * @param listed   statuses of the slice's files a listing gave, by name (others are looked up)
   * @param logNamesWriter whether a log file's name gives the instant that wrote it (timeline layout 2)
   * @param decoders Avro decoders by writer schema, shared by the slices of one reader (not thread-safe)
   * @throws CorruptTableException caused by {@link MetadataDamage} when a file of the slice is damaged
   */
  static SliceReader open(
    FileSystem fs,
    Path dir,
    FileSlice slice,
    Map<String, FileStatus> listed,
    BlockRule rule,
    boolean logNamesWriter,
    Map<String, GenericDatumReader<GenericRecord>> decoders
  ) throws IOException {
    HFileReader base = null;
    GenericDatumReader<GenericRecord> baseDecoder = null;
    List<Block> blocks;
    try {
      if (slice.baseFile() != null) {
        Path basePath = new Path(dir, slice.baseFile().name());
        try {
          FileStatus status = listed.get(slice.baseFile().name());
          base = status != null ? HFileReader.open(fs, status) : HFileReader.open(fs, basePath);
          baseDecoder = SliceBlocks.decoder(decoders, SliceBlocks.fileInfoSchema(base), basePath.toString());
        } catch (CorruptHFileException | HudiTableException | EOFException e) {
          // the file-system view holds only base files of completed instants: its records count
          throw MetadataDamage.corrupt(dir, basePath, e.getMessage(), e);
        }
      }
      blocks = SliceBlocks.read(fs, dir, slice, listed, rule, logNamesWriter, decoders);
    } catch (IOException | RuntimeException e) {
      if (base != null) {
        base.close();
      }
      throw e;
    }
    return new SliceReader(slice, dir, base, baseDecoder, blocks);
  }

  /**
   * {@link #open}, an I/O failure rethrown as {@link UncheckedIOException} naming the MDT partition directory;
   * damage as {@link CorruptTableException} (caused by {@link MetadataDamage}).
   */
  static SliceReader openChecked(
    FileSystem fs,
    Path dir,
    FileSlice slice,
    Map<String, FileStatus> listed,
    BlockRule rule,
    boolean logNamesWriter,
    Map<String, GenericDatumReader<GenericRecord>> decoders
  ) {
    try {
      return open(fs, dir, slice, listed, rule, logNamesWriter, decoders);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read metadata table partition " + dir + ": " + e.getMessage(), e);
    }
  }

  /** {@code where} names the record's file in an error (stringified only then: decoding runs per key). */
  private MetadataRecord decode(Cell cell, GenericDatumReader<GenericRecord> decoder, Object where) {
    byte[] value = cell.value();
    GenericRecord record = decode(cell.row(), decoder, value, 0, value.length, null, where);
    try {
      return MetadataRecord.decode(cell.rowString(), record);
    } catch (RuntimeException e) {
      throw undecodable(cell.row(), where, e);
    }
  }

  /** The record in {@code buf[offset, offset + length)}, decoded into {@code reuse} when not null. */
  private GenericRecord decode(
    byte[] row,
    GenericDatumReader<GenericRecord> decoder,
    byte[] buf,
    int offset,
    int length,
    GenericRecord reuse,
    Object where
  ) {
    try {
      binary = DecoderFactory.get().binaryDecoder(buf, offset, length, binary);
      return decoder.read(reuse, binary);
    } catch (IOException | RuntimeException e) {
      throw undecodable(row, where, e);
    }
  }

  private static HudiTableException undecodable(byte[] row, Object where, Exception e) {
    String key = new String(row, StandardCharsets.UTF_8);
    return new HudiTableException("cannot decode metadata record '" + key + "' in " + where + ": " + e, e);
  }

  // ---- reading ----

  /** Merges the records of exactly these keys (duplicates allowed) into {@code merged} (deletions included). */
  void collectKeys(Collection<String> keys, Map<String, MetadataRecord> merged) {
    byte[][] sorted = HFileReader.sortedDistinct(keys);
    String[] names = new String[sorted.length];
    visitKeys(
      sorted,
      null,
      new KeyVisitor() {
        @Override
        public void record(int key, GenericRecord record) {
          apply(merged, MetadataRecord.decode(name(key), record));
        }

        @Override
        public void deleted(int key) {
          merged.put(name(key), MetadataRecord.deletion(name(key)));
        }

        private String name(int key) {
          if (names[key] == null) {
            names[key] = new String(sorted[key], StandardCharsets.UTF_8);
          }
          return names[key];
        }
      }
    );
  }

  /**
   * Visits what the slice holds for {@code sorted} (UTF-8 keys, distinct, in row order:
   * {@link HFileReader#sortedDistinct}). Given a {@code field}, each record is decoded with that top-level
   * field alone (the others skipped) into one record per writer schema, again for the next key: a visitor
   * takes what it needs during the call (the record-index lookup decoded each entry's key, and allocated a
   * record, its nested record and their strings, for every key). Without one, records are whole, each its own.
   */
  void visitKeys(byte[][] sorted, String field, KeyVisitor visitor) {
    try {
      if (base != null) {
        reading = baseName();
        visitFile(base, baseDecoder, base, sorted, field, visitor);
      }
      for (Block b : blocks) {
        reading = b.file();
        if (b.deletes() != null) {
          visitDeletes(b.deletes(), sorted, visitor);
        } else {
          visitFile(b.hfile(), b.decoder(), b.source(), sorted, field, visitor);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(failure(e), e);
    } catch (CorruptHFileException | HudiTableException e) {
      throw damaged(e);
    }
  }

  private void visitFile(
    HFileReader file,
    GenericDatumReader<GenericRecord> decoder,
    Object where,
    byte[][] sorted,
    String field,
    KeyVisitor visitor
  ) throws IOException {
    GenericDatumReader<GenericRecord> reader = field == null ? decoder : projected(decoder, field);
    GenericRecord[] reuse = { field == null ? null : reused.get(reader) };
    file.seekAll(sorted, (key, buf, offset, length) -> {
      GenericRecord record = decode(sorted[key], reader, buf, offset, length, reuse[0], where);
      if (field != null) {
        reuse[0] = record;
      }
      try {
        visitor.record(key, record);
      } catch (RuntimeException e) {
        throw undecodable(sorted[key], where, e);
      }
    });
    if (reuse[0] != null) {
      reused.put(reader, reuse[0]);
    }
  }

  /** A decoder of {@code decoder}'s writer schema that keeps top-level {@code field} alone (all of it if it lacks one). */
  private GenericDatumReader<GenericRecord> projected(GenericDatumReader<GenericRecord> decoder, String field) {
    return projections.computeIfAbsent(new Projection(decoder, field), p -> {
      Schema writer = decoder.getSchema();
      Schema.Field kept = writer.getField(field);
      if (kept == null) {
        return decoder;
      }
      Schema reader = Schema.createRecord(writer.getName(), writer.getDoc(), writer.getNamespace(), false);
      reader.setFields(List.of(new Schema.Field(kept, kept.schema())));
      return new GenericDatumReader<>(writer, reader);
    });
  }

  /** A writer schema's decoder (by identity) and the field kept of it. */
  private record Projection(GenericDatumReader<GenericRecord> decoder, String field) {}

  /** The deletes among {@code sorted}: each delete sought among the keys, or each key among the deletes. */
  private static void visitDeletes(Set<String> deletes, byte[][] sorted, KeyVisitor visitor) {
    if (deletes.size() < sorted.length) {
      for (String deleted : deletes) {
        int at = Arrays.binarySearch(sorted, deleted.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned);
        if (at >= 0) {
          visitor.deleted(at);
        }
      }
    } else {
      for (int i = 0; i < sorted.length; i++) {
        if (deletes.contains(new String(sorted[i], StandardCharsets.UTF_8))) {
          visitor.deleted(i);
        }
      }
    }
  }

  /** Merges the records whose key starts with any of the (sorted) prefixes into {@code merged}. */
  void collectPrefixes(List<String> prefixes, Map<String, MetadataRecord> merged) {
    try {
      if (base != null) {
        reading = baseName();
        for (Cell c : base.scanPrefixes(prefixes)) {
          apply(merged, decode(c, baseDecoder, base));
        }
      }
      for (Block b : blocks) {
        reading = b.file();
        if (b.deletes() != null) {
          for (String key : b.deletes()) {
            if (startsWithAny(key, prefixes)) {
              merged.put(key, MetadataRecord.deletion(key));
            }
          }
        } else {
          for (Cell c : b.hfile().scanPrefixes(prefixes)) {
            apply(merged, decode(c, b.decoder(), b.source()));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(failure(e), e);
    } catch (CorruptHFileException | HudiTableException e) {
      throw damaged(e);
    }
  }

  /** Copies the records of {@code merged} that are present (not deleted) into {@code out}. */
  static void keepPresent(Map<String, MetadataRecord> merged, Map<String, MetadataRecord> out) {
    merged.forEach((key, record) -> {
      if (!record.isDeleted()) {
        out.put(key, record);
      }
    });
  }

  private String failure(Exception e) {
    return "cannot read metadata file slice " + slice.fileId() + ": " + e.getMessage();
  }

  /** A read of {@link #reading} failed on its bytes: damage (already so when the visitor's own read was). */
  private RuntimeException damaged(RuntimeException e) {
    return MetadataDamage.in(e) != null ? e : MetadataDamage.corrupt(dir, reading, e.getMessage(), e);
  }

  private String baseName() {
    return new Path(dir, slice.baseFile().name()).toString();
  }

  private static boolean startsWithAny(String key, List<String> prefixes) {
    for (String p : prefixes) {
      if (key.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  private static void apply(Map<String, MetadataRecord> merged, MetadataRecord record) {
    merged.merge(record.key(), record, MetadataRecord::combine);
  }

  @Override
  public void close() {
    if (base != null) {
      try {
        base.close();
      } catch (IOException e) {
        LOG.debug("Closing {} failed", base, e);
      }
    }
  }
}
