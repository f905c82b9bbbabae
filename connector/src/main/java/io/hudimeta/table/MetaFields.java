package io.hudimeta.table;

import java.util.List;

/** The meta columns Hudi writes into every record (when hoodie.populate.meta.fields), in their order. */
public final class MetaFields {

  public static final String COMMIT_TIME = "_hoodie_commit_time";
  public static final String COMMIT_SEQNO = "_hoodie_commit_seqno";
  public static final String RECORD_KEY = "_hoodie_record_key";
  public static final String PARTITION_PATH = "_hoodie_partition_path";
  public static final String FILE_NAME = "_hoodie_file_name";
  public static final List<String> ALL = List.of(COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME);

  private MetaFields() {}

  /** Is {@code name} one of Hudi's meta columns (not data a writer gives)? */
  public static boolean isMetaField(String name) {
    return name != null && ALL.contains(name);
  }
}
