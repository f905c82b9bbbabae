package io.hudimeta.metadata;

import io.hudimeta.avro.AvroSchemas;
import io.hudimeta.hfile.HFileReader;
import io.hudimeta.log.DeleteRecord;
import io.hudimeta.log.HeaderKey;
import io.hudimeta.log.LogBlock;
import io.hudimeta.log.LogBlockType;
import io.hudimeta.log.LogFileReader;
import io.hudimeta.log.LogFormatException;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.HudiTableException;
import io.hudimeta.table.LogFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The usable log blocks of one metadata-table file slice, oldest first, rollbacks and log compactions applied
 * ({@link SliceReader} reads them after the base HFile).
 *
 * <p>A byte range of a log file that is not a whole block, a log file that does not parse, or a block that
 * does not decode is judged by the instant that wrote it: the log file's (its name names the writing
 * deltacommit from timeline layout 2 on), and the torn block's own header instant when that header can be
 * read (the only one a layout-1 log, named after its slice's base instant, has). Of an instant readers may
 * count it is damage ({@link MetadataDamage}, thrown); of any other - a write that never completed, or was
 * rolled back - it is a torn write, skipped as Apache Hudi skips it: readers would not have used its blocks.
 */
final class SliceBlocks {

  private static final Logger LOG = LoggerFactory.getLogger(SliceBlocks.class);

  /** One usable log block: an HFile data block (hfile + decoder) or a delete block (deletes). */
  record Block(
    String instant,
    HFileReader hfile,
    GenericDatumReader<GenericRecord> decoder,
    Set<String> deletes,
    String source,
    String file
  ) {}

  private SliceBlocks() {}

  /**
   * The usable blocks of a slice's log files.
   *
   * @param logNamesWriter whether a log file's name gives the instant that wrote it (timeline layout 2)
   * @throws io.hudimeta.table.CorruptTableException caused by {@link MetadataDamage} for damage
   */
  static List<Block> read(
    FileSystem fs,
    Path dir,
    FileSlice slice,
    Map<String, FileStatus> listed,
    SliceReader.BlockRule rule,
    boolean logNamesWriter,
    Map<String, GenericDatumReader<GenericRecord>> decoders
  ) throws IOException {
    List<Block> kept = new ArrayList<>();
    for (LogFile log : slice.logFiles()) {
      Path file = new Path(dir, log.name());
      LogFileReader.Contents contents;
      try {
        FileStatus status = listed.get(log.name());
        contents = status != null ? LogFileReader.scan(fs, status) : LogFileReader.scan(fs, file);
      } catch (LogFormatException e) {
        if (!counts(log, null, false, rule, logNamesWriter)) {
          LOG.info(
            "Skipping log file {} of instant {}, not valid for readers: {}",
            file,
            log.instantTime(),
            e.getMessage()
          );
          continue;
        }
        throw MetadataDamage.corrupt(dir, file, e.getMessage(), e);
      }
      for (LogFileReader.Skipped torn : contents.skipped()) {
        String instant = torn.header(HeaderKey.INSTANT_TIME);
        boolean compacted = torn.header(HeaderKey.COMPACTED_BLOCK_TIMES) != null;
        String problem =
          torn.length() + " bytes at offset " + torn.offset() + " are not a whole block: " + torn.problem();
        if (counts(log, instant, compacted, rule, logNamesWriter)) {
          String by = instant != null && rule.isValid(instant, compacted) ? instant : log.instantTime();
          throw MetadataDamage.corrupt(dir, file, problem + ", in a write of completed instant " + by, null);
        }
        LOG.info(
          "Skipping a torn write in {}: {} (instant {} is not valid for readers)",
          file,
          problem,
          instant != null ? instant : log.instantTime()
        );
      }
      for (LogBlock block : contents.blocks()) {
        try {
          apply(block, kept, rule, log, logNamesWriter, decoders);
        } catch (UncheckedIOException e) {
          throw e;
        } catch (IOException | RuntimeException e) {
          throw MetadataDamage.corrupt(dir, file, e.getMessage(), e);
        }
      }
    }
    return kept;
  }

  /**
   * Whether blocks of the torn range, or unreadable file, of {@code log} may be ones readers count: its
   * header's instant ({@code headerInstant}, null when unreadable) is valid, or the file's name gives the
   * writing instant (layout 2, or no header to go by) and that instant is valid.
   */
  private static boolean counts(
    LogFile log,
    String headerInstant,
    boolean compacted,
    SliceReader.BlockRule rule,
    boolean logNamesWriter
  ) {
    if (headerInstant != null && rule.isValid(headerInstant, compacted)) {
      return true;
    }
    return (logNamesWriter || headerInstant == null) && rule.isValid(log.instantTime(), false);
  }

  private static void apply(
    LogBlock block,
    List<Block> kept,
    SliceReader.BlockRule rule,
    LogFile log,
    boolean logNamesWriter,
    Map<String, GenericDatumReader<GenericRecord>> decoders
  ) throws IOException {
    String instant = block.instantTime();
    switch (block.type()) {
      case COMMAND -> {
        if (block.isRollback()) {
          String target = block.rollbackTargetInstant();
          kept.removeIf(b -> target.equals(b.instant));
        } else {
          LOG.warn("Ignoring unknown command block {}", block);
        }
      }
      case HFILE_DATA, DELETE -> {
        String compacted = block.header(HeaderKey.COMPACTED_BLOCK_TIMES);
        if (!rule.isValid(instant, compacted != null)) {
          LOG.debug("Skipping {}: instant {} is not valid for readers", block, instant);
          return;
        }
        if (compacted != null) {
          Set<String> replaced = new HashSet<>(Arrays.asList(compacted.split(",")));
          kept.removeIf(b -> replaced.contains(b.instant));
        }
        kept.add(block.type() == LogBlockType.DELETE ? deleteBlock(block) : dataBlock(block, decoders));
      }
      case CORRUPT -> {
        if (counts(log, instant, false, rule, logNamesWriter)) {
          throw new LogFormatException(block + " is corrupt");
        }
        LOG.info("Skipping corrupt block {}: instant {} is not valid for readers", block, instant);
      }
      default -> throw new HudiTableException(
        "unexpected " +
          block.type() +
          " block in metadata table log " +
          block.source() +
          " (metadata tables hold only HFile data, delete and command blocks)"
      );
    }
  }

  private static Block dataBlock(LogBlock block, Map<String, GenericDatumReader<GenericRecord>> decoders)
    throws IOException {
    HFileReader hfile = HFileReader.fromBytes(block.hfileContent(), block.toString());
    String schema = block.header(HeaderKey.SCHEMA);
    if (schema == null) {
      schema = fileInfoSchema(hfile);
    }
    String where = block.toString();
    return new Block(block.instantTime(), hfile, decoder(decoders, schema, where), null, where, block.source());
  }

  private static Block deleteBlock(LogBlock block) {
    Set<String> keys = new HashSet<>();
    for (DeleteRecord d : block.deleteRecords()) {
      if (d.recordKey() != null) {
        keys.add(d.recordKey());
      }
    }
    return new Block(block.instantTime(), null, null, keys, block.toString(), block.source());
  }

  static String fileInfoSchema(HFileReader reader) {
    byte[] schema = reader.fileInfo().get("schema");
    if (schema == null) {
      throw new HudiTableException(reader + " has no 'schema' in its file info");
    }
    return new String(schema, StandardCharsets.UTF_8);
  }

  static GenericDatumReader<GenericRecord> decoder(
    Map<String, GenericDatumReader<GenericRecord>> decoders,
    String schemaJson,
    String where
  ) {
    if (schemaJson == null) {
      throw new HudiTableException(where + " carries no writer schema");
    }
    return decoders.computeIfAbsent(schemaJson, json -> {
      Schema schema = AvroSchemas.parse(json);
      return new GenericDatumReader<>(schema);
    });
  }
}
