package io.hudimeta.table;

import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsing and formatting of data file names (docs/format.md §1.1 and §6.1); the cases both this and
 * pyhudi/table/file_names.py must pass are tests/conformance/base_file_names.json and log_file_names.json.
 */
public final class FileNames {

  /**
   * Hudi's inline log file pattern with extension {@code log} ({@code archive} names the archived
   * timeline's files); the time must be digits, as every time Hudi writes is.
   */
  private static final Pattern LOG = Pattern.compile(
    "\\.([^._]+)_([0-9]+)\\.log\\.([0-9]+)(?:_([0-9]+-[0-9]+-[0-9]+)(\\.cdc)?)?"
  );
  public static final String PARTITION_METAFILE_PREFIX = ".hoodie_partition_metadata";
  /** HoodieFileFormat.BASE_FILE_EXTENSIONS. */
  public static final Set<String> BASE_EXTENSIONS = Set.of("parquet", "orc", "hfile", "lance");

  private FileNames() {}

  /**
   * Base file from {@code <fileId>_<writeToken>_<instant>.<ext>}: the file id ends at the first underscore,
   * the token at the second, the instant at the next dot (HoodieBaseFile's scan). Null when the name is not
   * a base file name: a partition metafile, another extension, or an empty part or non-numeric instant.
   */
  public static BaseFile parseBaseFile(String name, long size) {
    int first = name.indexOf('_');
    int second = first < 0 ? -1 : name.indexOf('_', first + 1);
    int dot = second < 0 ? -1 : name.indexOf('.', second + 1);
    if (name.startsWith(PARTITION_METAFILE_PREFIX) || first <= 0 || second <= first + 1 || dot < 0) {
      return null;
    }
    String instant = name.substring(second + 1, dot);
    String extension = name.substring(dot + 1);
    if (!isDigits(instant) || !BASE_EXTENSIONS.contains(extension)) {
      return null;
    }
    return new BaseFile(name, name.substring(0, first), name.substring(first + 1, second), instant, extension, size);
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** Log file from its name, or null when the name is not a log file name. */
  public static LogFile parseLogFile(String name, long size) {
    Matcher m = LOG.matcher(name);
    if (!m.matches()) {
      return null;
    }
    return new LogFile(
      name,
      m.group(1),
      m.group(2),
      Integer.parseInt(m.group(3)),
      m.group(4),
      m.group(5) == null ? "" : m.group(5),
      size
    );
  }

  public static boolean isBaseFile(String name) {
    return parseBaseFile(name, -1) != null;
  }

  public static boolean isLogFile(String name) {
    return parseLogFile(name, -1) != null;
  }

  public static boolean isPartitionMetafile(String name) {
    return name.startsWith(PARTITION_METAFILE_PREFIX);
  }

  /** {@code <fileId>_<writeToken>_<instantTime>.<extension>}; the extension may be given with or without its dot. */
  public static String baseFileName(String fileId, String writeToken, String instantTime, String extension) {
    String ext = extension.startsWith(".") ? extension.substring(1) : extension;
    return fileId + "_" + writeToken + "_" + instantTime + "." + ext;
  }

  /** {@code .<fileId>_<instantTime>.log.<version>_<writeToken>}. */
  public static String logFileName(String fileId, String instantTime, int version, String writeToken) {
    return "." + fileId + "_" + instantTime + ".log." + version + "_" + writeToken;
  }
}
