package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.HudiException;
import io.hudimeta.avro.AvroSchemas;
import io.hudimeta.hfile.Cell;
import io.hudimeta.hfile.HFileReader;
import io.hudimeta.log.DeleteRecord;
import io.hudimeta.log.LogBlock;
import io.hudimeta.log.LogFileReader;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Runs the connector's readers over a directory of (fuzzed) files for tests/connector/fuzz, one py4j
 * call per batch: one JSON line per file, in file-name order, saying what the reader made of it -
 * {@code {"file", "ok": true, "result"}} with digests of everything it decoded, {@code {"file", "error",
 * "message", "hudi"}} for a throwable (hudi: a {@link HudiException}), or {@code {"file", "error": "hang"}}
 * when a decode runs past the time limit - and {@code "allocated"}: the bytes the decode allocated.
 */
public final class FuzzProbe {

  private FuzzProbe() {}

  /**
   * {@code kind}: "log" (every block, each decoded by its type), "hfile" (a full scan plus a seek of each
   * of the newline-separated {@code rows}) or "instant" (the instant-file decoder and commit metadata).
   */
  public static String probe(String kind, String dir, String rows, int timeoutSeconds) throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    File[] files = new File(dir).listFiles(File::isFile);
    Arrays.sort(files);
    StringJoiner out = new StringJoiner("\n");
    ExecutorService pool = newPool();
    try {
      for (File file : files) {
        ObjectNode line = InstantContent.JSON.createObjectNode().put("file", file.getName());
        long[] allocated = { -1 };
        Future<JsonNode> result = pool.submit(() -> {
          long before = allocatedBytes();
          try {
            return decode(kind, fs, file, rows);
          } finally {
            allocated[0] = allocatedBytes() - before;
          }
        });
        try {
          JsonNode decoded = result.get(timeoutSeconds, TimeUnit.SECONDS);
          line.put("ok", true).set("result", decoded);
        } catch (TimeoutException e) {
          result.cancel(true);
          pool.shutdownNow(); // a stuck decode keeps its thread; the next file gets a fresh one
          pool = newPool();
          line.put("error", "hang");
        } catch (ExecutionException e) {
          Throwable t = e.getCause();
          line
            .put("error", t.getClass().getName())
            .put("message", String.valueOf(t.getMessage()))
            .put("hudi", t instanceof HudiException);
        }
        out.add(line.put("allocated", allocated[0]).toString());
      }
    } finally {
      pool.shutdownNow();
    }
    return out.toString();
  }

  /** Bytes the current thread has allocated so far (HotSpot), to catch a decode that sizes a buffer from a corrupt length. */
  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  private static ExecutorService newPool() {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "fuzz-probe");
      t.setDaemon(true);
      return t;
    });
  }

  private static JsonNode decode(String kind, FileSystem fs, File file, String rows) throws Exception {
    Path path = new Path(file.toURI());
    return switch (kind) {
      case "log" -> log(fs, path);
      case "hfile" -> hfile(fs, path, rows);
      case "instant" -> instant(file);
      default -> throw new IllegalArgumentException("unknown kind " + kind);
    };
  }

  private static JsonNode log(FileSystem fs, Path path) throws Exception {
    ArrayNode blocks = InstantContent.JSON.createArrayNode();
    for (LogBlock block : LogFileReader.read(fs, path)) {
      ObjectNode b = blocks.addObject();
      b.put("offset", block.offset()).put("type", block.type().name());
      ObjectNode header = b.putObject("header");
      new TreeMap<>(block.header()).forEach((k, v) -> header.put(k.name(), v));
      ObjectNode footer = b.putObject("footer");
      new TreeMap<>(block.footer()).forEach((k, v) -> footer.put(String.valueOf(k), v));
      b.put("content", sha(block.content()));
      Digest rows = new Digest();
      switch (block.type()) {
        case AVRO_DATA -> {
          for (GenericRecord r : block.avroRecords()) {
            rows.add(r.toString());
          }
          StructType schema = AvroSchemas.toStructType(block.writerSchema());
          for (InternalRow r : block.avroRows(schema)) {
            rows.add(r.toString());
          }
        }
        case DELETE -> {
          for (DeleteRecord d : block.deleteRecords()) {
            rows.add(d.recordKey() + "|" + d.partitionPath() + "|" + d.orderingValue());
          }
        }
        case PARQUET_DATA -> {
          for (InternalRow r : block.parquetRows(AvroSchemas.toStructType(block.writerSchema()))) {
            rows.add(r.toString());
          }
        }
        case HFILE_DATA -> {
          try (HFileReader reader = HFileReader.fromBytes(block.hfileContent(), block.toString())) {
            cells(reader.scan(), rows);
          }
        }
        case COMMAND -> rows.add(block.isRollback() ? block.rollbackTargetInstant() : "not a rollback");
        default -> {
        }
      }
      b.put("rows", rows.hex()).put("count", rows.count);
    }
    return blocks;
  }

  private static JsonNode hfile(FileSystem fs, Path path, String rows) throws Exception {
    ObjectNode result = InstantContent.JSON.createObjectNode();
    try (HFileReader reader = HFileReader.open(fs, path)) {
      Digest cells = new Digest();
      cells(reader.scan(), cells);
      result.put("entries", reader.entryCount()).put("cells", cells.hex()).put("count", cells.count);
      Digest info = new Digest();
      new TreeMap<>(reader.fileInfo()).forEach((k, v) -> info.add(k + "=" + sha(v)));
      result.put("fileInfo", info.hex());
      ArrayNode seeks = result.putArray("seeks");
      for (String row : rows.isEmpty() ? new String[0] : rows.split("\n", -1)) {
        Optional<Cell> cell = reader.seek(row);
        seeks.add(cell.isPresent() ? sha(cell.get().value()) : null);
      }
    }
    return result;
  }

  private static JsonNode instant(File file) throws Exception {
    JsonNode tree = InstantContent.parse(Files.readAllBytes(file.toPath()), file.getPath());
    CommitMetadata meta = CommitMetadata.fromJson(tree);
    return InstantContent.JSON.createObjectNode()
      .put("tree", sha(tree.toString().getBytes(StandardCharsets.UTF_8)))
      .put("writeStats", meta.allWriteStats().size());
  }

  private static void cells(Iterator<Cell> it, Digest into) {
    while (it.hasNext()) {
      Cell c = it.next();
      into.add(HexFormat.of().formatHex(c.row()) + "=" + sha(c.value()));
    }
  }

  private static String sha(byte[] bytes) {
    return new Digest().add(bytes).hex();
  }

  /** SHA-256 over a sequence of items (each length-prefixed), and their count. */
  private static final class Digest {

    private final MessageDigest md;
    private long count;

    Digest() {
      try {
        md = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    Digest add(String item) {
      return add(item.getBytes(StandardCharsets.UTF_8));
    }

    Digest add(byte[] item) {
      md.update(Long.toString(item.length).getBytes(StandardCharsets.US_ASCII));
      md.update((byte) ':');
      md.update(item);
      count++;
      return this;
    }

    String hex() {
      return HexFormat.of().formatHex(md.digest());
    }
  }
}
