package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;

/**
 * The timeline history of a table of timeline layout 2 (table versions 8 and 9): Apache Hudi 1.x's LSM
 * timeline under {@code .hoodie/<hoodie.timeline.path>/<hoodie.timeline.history.path>/} (docs/format.md
 * §4.4), where archival moved the instants that left the active timeline.
 *
 * <p>{@code _version_} names the current manifest {@code manifest_<N>} (the highest manifest listed when it is
 * missing or unreadable, as Hudi's LSMTimeline does); the manifest's JSON {@code files} name the Parquet files
 * {@code <min>_<max>_<level>.parquet} of the snapshot, whose rows are {@code HoodieLSMTimelineInstant}
 * records: requested time, completion time, completed action, the completed instant file's bytes
 * ({@code metadata}) and the plan's bytes. Only files whose requested-time range meets a query are read, and
 * only when a query reaches before the active timeline (time travel, incremental reads): a snapshot of the
 * latest state never loads the history.
 *
 * <p>Archived instants come back as completed {@link Instant}s whose {@code fileName} is the history file
 * holding them; {@link Timeline#metadata} and {@link Timeline#commitMetadata} read their content from there.
 */
public final class ArchivedTimeline {

  static final String VERSION_FILE = "_version_";
  static final String HISTORY_PATH = "hoodie.timeline.history.path";
  private static final Pattern MANIFEST = Pattern.compile("manifest_(\\d+)");
  private static final Pattern DATA_FILE = Pattern.compile("(\\d+)_(\\d+)_(\\d)\\.parquet");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileSystem fs;
  private final Path dir;
  private final List<String> files;
  private final Map<String, List<Row>> rows = new ConcurrentHashMap<>();
  private final Map<String, JsonNode> contents = new ConcurrentHashMap<>();

  /** One {@code HoodieLSMTimelineInstant} row. */
  public record Row(String instantTime, String completionTime, String action, byte[] metadata, byte[] plan) {}

  private ArchivedTimeline(FileSystem fs, Path dir, List<String> files) {
    this.fs = fs;
    this.dir = dir;
    this.files = Collections.unmodifiableList(files);
  }

  /** The history folder of a table: the timeline folder's {@code hoodie.timeline.history.path} ({@code history}). */
  public static Path historyPath(TableConfig config, Path basePath) {
    return new Path(config.timelinePath(basePath), config.get(HISTORY_PATH, "history"));
  }

  /** Reads the version file and the manifest it names (two small reads; none of the data files). */
  public static ArchivedTimeline load(FileSystem fs, Path historyDir) {
    int version = latestVersion(fs, historyDir);
    List<String> names = new ArrayList<>();
    if (version >= 0) {
      Path manifest = new Path(historyDir, "manifest_" + version);
      try {
        JsonNode doc = JSON.readTree(readText(fs, manifest));
        for (JsonNode entry : doc.path("files")) {
          String name = entry.path("fileName").asText("");
          if (DATA_FILE.matcher(name).matches()) {
            names.add(name);
          }
        }
      } catch (IOException e) {
        throw new HudiTableException(
          "cannot read the timeline history manifest " + manifest + " (version " + version + "): " + e.getMessage(),
          e
        );
      }
    }
    Collections.sort(names);
    return new ArchivedTimeline(fs, historyDir, names);
  }

  /** An empty history (a layout-1 table, whose archive is another format, or no history folder). */
  public static ArchivedTimeline empty(FileSystem fs, Path dir) {
    return new ArchivedTimeline(fs, dir, new ArrayList<>());
  }

  private static int latestVersion(FileSystem fs, Path dir) {
    try {
      return Integer.parseInt(readText(fs, new Path(dir, VERSION_FILE)).trim());
    } catch (IOException | NumberFormatException e) {
      int best = -1;
      try {
        for (FileStatus s : fs.listStatus(dir)) {
          Matcher m = MANIFEST.matcher(s.getPath().getName());
          if (m.matches()) {
            best = Math.max(best, Integer.parseInt(m.group(1)));
          }
        }
      } catch (FileNotFoundException missing) {
        return -1;
      } catch (IOException io) {
        throw new HudiTableException("cannot list the timeline history " + dir + ": " + io.getMessage(), io);
      }
      return best;
    }
  }

  private static String readText(FileSystem fs, Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Whether a name is one of the history's data files (what archived instants carry as their file name). */
  public static boolean isHistoryFile(String fileName) {
    return fileName != null && DATA_FILE.matcher(fileName).matches();
  }

  public Path directory() {
    return dir;
  }

  /** The data files of the current snapshot, by name (oldest first). */
  public List<String> fileNames() {
    return files;
  }

  public boolean isEmpty() {
    return files.isEmpty();
  }

  /**
   * Archived instants with requested time in {@code [start, end]} (null: open), in requested-time order, as
   * completed instants; reads only the files whose name range meets it. An instant in two files of the
   * snapshot comes once.
   */
  public List<Instant> instants(String start, String end) {
    Map<String, Instant> out = new LinkedHashMap<>();
    for (String name : files) {
      Matcher m = DATA_FILE.matcher(name);
      if (
        !m.matches() ||
        (start != null && m.group(2).compareTo(start) < 0) ||
        (end != null && m.group(1).compareTo(end) > 0)
      ) {
        continue;
      }
      for (Row r : rows(name)) {
        String t = r.instantTime();
        if (t == null || r.action() == null) {
          continue;
        }
        if ((start == null || t.compareTo(start) >= 0) && (end == null || t.compareTo(end) <= 0)) {
          out.putIfAbsent(
            t + "_" + r.action(),
            new Instant(t, r.completionTime(), r.action(), Instant.State.COMPLETED, name)
          );
        }
      }
    }
    List<Instant> sorted = new ArrayList<>(out.values());
    sorted.sort(Comparator.comparing(Instant::requestedTime).thenComparing(Instant::action));
    return sorted;
  }

  /** The row of an archived instant (one {@link #instants} returned), or null. */
  public Row row(Instant instant) {
    for (Row r : rows(instant.fileName())) {
      if (instant.requestedTime().equals(r.instantTime()) && instant.action().equals(r.action())) {
        return r;
      }
    }
    return null;
  }

  /** The archived completed instant file decoded to a JSON tree ({@code {}} when it was empty). */
  public JsonNode metadata(Instant instant) {
    String key = instant.fileName() + "#" + instant.requestedTime() + "_" + instant.action();
    return contents.computeIfAbsent(key, k -> {
      Row r = row(instant);
      if (r == null) {
        throw new HudiTableException(
          "instant " +
            instant.requestedTime() +
            " " +
            instant.action() +
            " is not in " +
            new Path(dir, instant.fileName())
        );
      }
      byte[] bytes = r.metadata() == null ? new byte[0] : r.metadata();
      return InstantContent.parse(bytes, new Path(dir, instant.fileName()) + " (" + instant.requestedTime() + ")");
    });
  }

  /** All rows of one data file, read once. */
  public List<Row> rows(String fileName) {
    return rows.computeIfAbsent(fileName, this::read);
  }

  private List<Row> read(String fileName) {
    Path path = new Path(dir, fileName);
    List<Row> out = new ArrayList<>();
    Configuration conf = new Configuration(fs.getConf());
    try (ParquetReader<Group> reader = new Builder(HadoopInputFile.fromPath(path, conf)).withConf(conf).build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        out.add(
          new Row(
            text(g, "instantTime"),
            text(g, "completionTime"),
            text(g, "action"),
            bytes(g, "metadata"),
            bytes(g, "plan")
          )
        );
      }
    } catch (IOException | RuntimeException e) {
      throw new HudiTableException("cannot read the timeline history file " + path + ": " + e.getMessage(), e);
    }
    return out;
  }

  private static boolean has(Group g, String field) {
    return g.getType().containsField(field) && g.getFieldRepetitionCount(field) > 0;
  }

  private static String text(Group g, String field) {
    return has(g, field) ? g.getString(field, 0) : null;
  }

  private static byte[] bytes(Group g, String field) {
    return has(g, field) ? g.getBinary(field, 0).getBytes() : null;
  }

  private static final class Builder extends ParquetReader.Builder<Group> {

    Builder(InputFile file) {
      super(file);
    }

    @Override
    protected ReadSupport<Group> getReadSupport() {
      return new GroupReadSupport();
    }
  }

  @Override
  public String toString() {
    return "ArchivedTimeline(" + dir + ", " + files.size() + " files)";
  }
}
