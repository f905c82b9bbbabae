package io.hudimeta.table;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing and formatting of data file names; the rules of FORMAT-NOTES §1.1 and §6.1. */
public final class FileNames {
  private static final Pattern LOG = Pattern.compile("\\.(.+?)_(\\d+)\\.log\\.(\\d+)(?:_(\\d+-\\d+-\\d+))?([.-]cdc)?");
  public static final String PARTITION_METAFILE_PREFIX = ".hoodie_partition_metadata";

  private FileNames() {
  }

  /**
   * Base file from {@code <fileId>_<writeToken>_<instant>.<ext>}: the file id ends at the first
   * underscore, the instant starts after the last one. Null when the name is not a base file name.
   */
  public static BaseFile parseBaseFile(String name, long size) {
    int first = name.indexOf('_');
    int last = name.lastIndexOf('_');
    if (name.startsWith(".") || first <= 0 || last <= first + 1) {
      return null;
    }
    String rest = name.substring(last + 1);
    int dot = rest.indexOf('.');
    if (dot <= 0 || dot == rest.length() - 1 || !allDigits(rest, dot)) {
      return null;
    }
    return new BaseFile(name, name.substring(0, first), name.substring(first + 1, last), rest.substring(0, dot),
        rest.substring(dot + 1), size);
  }

  private static boolean allDigits(String s, int end) {
    for (int i = 0; i < end; i++) {
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
    return new LogFile(name, m.group(1), m.group(2), Integer.parseInt(m.group(3)), m.group(4),
        m.group(5) == null ? "" : m.group(5), size);
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
