package io.hudimeta.table;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Which of {@code .hoodie/hoodie.properties} and its backup a table's config is read from: the main file,
 * else the backup (writers update the file through it). A file stands when Apache Hudi's
 * {@code ConfigUtils.fetchConfigs} (HoodieTableConfig reads through it) would read it, loadable as Java
 * Properties and, where it has {@code hoodie.table.checksum}, that parsing as a long equal to CRC32 of
 * {@code <database>.<table name>}, and when it names a table ({@link TableConfig}'s validation), which Hudi
 * does not ask: an empty or torn file without the checksum line Hudi reads as it is, and this passes over.
 * pyhudi's {@code pyhudi.table.properties.load} follows the same rule; the conformance vectors
 * ({@code tests/conformance/table_config.json}) pin both.
 */
final class TableConfigFiles {

  private TableConfigFiles() {}

  /** A table is there once hoodie.properties is, or its backup (an update between its writes). */
  static boolean exists(FileSystem fs, Path basePath) {
    Path meta = new Path(basePath, TableConfig.META_FOLDER);
    try {
      return (
        fs.exists(new Path(meta, TableConfig.PROPERTIES_FILE)) || fs.exists(new Path(meta, TableConfig.BACKUP_FILE))
      );
    } catch (IOException e) {
      throw new HudiTableException("cannot reach " + meta + ": " + e.getMessage(), e);
    }
  }

  static TableConfig load(FileSystem fs, Path basePath) {
    Path meta = new Path(basePath, TableConfig.META_FOLDER);
    Path main = new Path(meta, TableConfig.PROPERTIES_FILE);
    Path backup = new Path(meta, TableConfig.BACKUP_FILE);
    String mainProblem = null;
    boolean backupThere = false;
    for (Path file : new Path[] { main, backup }) {
      byte[] bytes = readIfExists(fs, file);
      if (bytes == null) {
        continue;
      }
      try {
        return TableConfig.validated(basePath, file, accepted(file, bytes));
      } catch (CorruptTableException e) {
        if (file == backup && mainProblem == null) {
          throw e;
        }
        mainProblem = file == main ? e.getMessage() : mainProblem;
        backupThere = file == backup;
      }
    }
    if (mainProblem == null) {
      throw new TableNotFoundException(basePath.toString());
    }
    String hint = backupThere
      ? " (and " + TableConfig.BACKUP_FILE + " is invalid too)"
      : " (and there is no " + TableConfig.BACKUP_FILE + " to fall back to)";
    throw new CorruptTableException(mainProblem + hint);
  }

  /** The properties of {@code bytes} when Apache Hudi reads them (see the class comment); else why not. */
  static Map<String, String> accepted(Path file, byte[] bytes) {
    Properties p = new Properties();
    try (InputStream in = new ByteArrayInputStream(bytes)) {
      p.load(in);
    } catch (IOException | IllegalArgumentException e) {
      throw new CorruptTableException(file + " is not a valid properties file: " + e.getMessage());
    }
    Map<String, String> props = new TreeMap<>();
    for (String key : p.stringPropertyNames()) {
      props.put(key, p.getProperty(key));
    }
    String stored = props.get(TableConfig.CHECKSUM);
    if (stored != null) {
      String name = props.get(TableConfig.NAME);
      if (name == null) {
        throw new CorruptTableException(
          "corrupt table config " +
            file +
            ": " +
            TableConfig.CHECKSUM +
            " is set but " +
            TableConfig.NAME +
            " is missing"
        );
      }
      long expected = TableConfig.checksum(props.get(TableConfig.DATABASE), name);
      if (!parsesTo(stored, expected)) {
        throw new CorruptTableException(
          "corrupt table config " +
            file +
            ": " +
            TableConfig.CHECKSUM +
            " is " +
            stored +
            " but CRC32 of '" +
            (props.get(TableConfig.DATABASE) == null ? "" : props.get(TableConfig.DATABASE)) +
            "." +
            name +
            "' is " +
            expected +
            " (partially written file, or table name/database edited by hand)"
        );
      }
    }
    return Collections.unmodifiableMap(props);
  }

  /** Hudi's {@code Long.parseLong(stored) == expected}. */
  private static boolean parsesTo(String stored, long expected) {
    try {
      return Long.parseLong(stored) == expected;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static byte[] readIfExists(FileSystem fs, Path file) {
    try (InputStream in = fs.open(file)) {
      return in.readAllBytes();
    } catch (FileNotFoundException e) {
      return null;
    } catch (IOException e) {
      throw new HudiTableException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
