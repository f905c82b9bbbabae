package io.hudimeta.spark.options;

import io.hudimeta.hfile.BlockCache;
import io.hudimeta.view.ViewStorageConfig;
import java.io.Serializable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The read options of format("hudi-meta"), under Apache Hudi's own keys, validated once: every key a read
 * honours is named here (those the view and the block cache own by their constants), and {@link OptionKeys}
 * judges the rest.
 */
public final class ReadOptions implements Serializable {

  /** The short name of the format: {@code spark.read.format(FORMAT)}, registered by the source. */
  public static final String FORMAT = "hudi-meta";

  public enum QueryType {
    SNAPSHOT,
    READ_OPTIMIZED,
    INCREMENTAL,
  }

  public static final String QUERY_TYPE = "hoodie.datasource.query.type";
  public static final String AS_OF = "as.of.instant";
  public static final String BEGIN = "hoodie.datasource.read.begin.instanttime";
  public static final String END = "hoodie.datasource.read.end.instanttime";
  /** {@code latest_state} (the latest version of each changed key) or {@code cdc} (every change, Hudi's CDC format). */
  public static final String INCREMENTAL_FORMAT = "hoodie.datasource.query.incremental.format";
  /** Where a streaming read starts: "earliest" (every commit), "latest" (commits from now on) or an instant. */
  public static final String STREAM_START = "hoodie.datasource.streaming.startOffset";
  public static final String METADATA_ENABLE = ViewStorageConfig.METADATA_ENABLE;
  public static final String DATA_SKIPPING = "hoodie.enable.data.skipping";
  /**
   * hudi-meta's own (not a Hudi key): false skips the check that a storage listing holds the newest file of
   * every file group, which reads every commit on the timeline. pyhudi's index lookups set it: the writer's
   * view lists partitions the same unchecked way, and a write's cost must not grow with the table's history.
   */
  public static final String CHECK_LISTED_FILES = "hudi-meta.check.listed.files";
  /**
   * hudi-meta's own: read exactly the file slices the pending compaction plan of this instant names, merged
   * (what pyhudi's compaction writes as each slice's new base file). Log files written after the plan, in the
   * slice the compaction opens, are not read.
   */
  public static final String COMPACTION_INSTANT = "hudi-meta.compaction.instant";
  /** hudi-meta's own: read exactly the input file slices of the pending clustering plan of this instant. */
  public static final String CLUSTERING_INSTANT = "hudi-meta.clustering.instant";
  /**
   * hudi-meta's own: read the log files of the file slices the pending log compaction plan of this instant names,
   * merged without their base files, deletes included (what pyhudi's log compaction writes as one log file per
   * slice); rows carry LogCompactionReader's DELETED and COMPACTED columns.
   */
  public static final String LOG_COMPACTION_INSTANT = "hudi-meta.logcompaction.instant";
  /**
   * hudi-meta's own (Apache Hudi's Spark reader has no such cap): record-index pruning looks up at most this many
   * keys on the driver; a query pinning more record keys is planned without it.
   */
  public static final String RECORD_INDEX_MAX_KEYS = "hudi-meta.record.index.max.lookup.keys";
  private static final int DEFAULT_RECORD_INDEX_MAX_KEYS = 1000;
  /**
   * hudi-meta's own: {@code true} prunes by the record index even on a table whose commits may have written a
   * key twice (io.hudimeta.index.RepeatedKeys), as Apache Hudi does, reading only the place the index names;
   * {@code false} (the default) leaves those tables to the column statistics, so a filter never drops a row.
   */
  public static final String RECORD_INDEX_TRUSTED = "hudi-meta.record.index.trusted";
  /** How the synced view keeps a table's files (io.hudimeta.view.ViewStorageConfig). */
  private static final Set<String> VIEW_KEYS = Set.of(
    ViewStorageConfig.TYPE,
    ViewStorageConfig.SPILLABLE_MEM,
    ViewStorageConfig.SPILLABLE_DIR
  );
  private static final Set<String> HONOURED = union(
    Set.of(QUERY_TYPE, BEGIN, END, METADATA_ENABLE, DATA_SKIPPING, STREAM_START, INCREMENTAL_FORMAT),
    union(VIEW_KEYS, Set.of(BlockCache.ENABLED, BlockCache.SIZE, BlockCache.TTL_MINUTES, BlockCache.SOFT))
  );

  // read by the planning, scans and streams of the other packages: immutable once parsed
  public final String path;
  public final QueryType queryType;
  public final String asOfInstant;
  public final String beginInstant;
  public final String endInstant;
  public final boolean metadataEnabled;
  public final boolean dataSkipping;
  public final boolean checkListedFiles;
  public final String compactionInstant;
  public final String clusteringInstant;
  public final String logCompactionInstant;
  public final int recordIndexMaxKeys;
  public final boolean recordIndexTrusted;
  private final Map<String, String> viewOptions = new HashMap<>();
  public final String streamStart;
  public final boolean cdc;
  /** One micro-batch of a streaming read ({@link #incremental}): its begin is a completion time. */
  private boolean streamBatch;
  private final Map<String, String> given;

  private ReadOptions(Map<String, String> o) {
    given = new HashMap<>(o);
    path = required(o, "path");
    streamStart = o.getOrDefault(STREAM_START, "earliest").trim();
    cdc = cdc(o.getOrDefault(INCREMENTAL_FORMAT, "latest_state"));
    queryType = queryType(o.getOrDefault(QUERY_TYPE, "snapshot"));
    asOfInstant = o.containsKey(AS_OF) ? Instants.normalize(o.get(AS_OF), AS_OF) : null;
    beginInstant = o.containsKey(BEGIN) ? Instants.normalize(o.get(BEGIN), BEGIN) : null;
    endInstant = o.containsKey(END) ? Instants.normalize(o.get(END), END) : null;
    metadataEnabled = bool(o, METADATA_ENABLE, true);
    dataSkipping = bool(o, DATA_SKIPPING, true);
    checkListedFiles = bool(o, CHECK_LISTED_FILES, true);
    compactionInstant = o.containsKey(COMPACTION_INSTANT)
      ? Instants.normalize(o.get(COMPACTION_INSTANT), COMPACTION_INSTANT)
      : null;
    clusteringInstant = o.containsKey(CLUSTERING_INSTANT)
      ? Instants.normalize(o.get(CLUSTERING_INSTANT), CLUSTERING_INSTANT)
      : null;
    logCompactionInstant = o.containsKey(LOG_COMPACTION_INSTANT)
      ? Instants.normalize(o.get(LOG_COMPACTION_INSTANT), LOG_COMPACTION_INSTANT)
      : null;
    recordIndexMaxKeys = count(o, RECORD_INDEX_MAX_KEYS, DEFAULT_RECORD_INDEX_MAX_KEYS);
    recordIndexTrusted = bool(o, RECORD_INDEX_TRUSTED, false);
    boolean readsPlan = compactionInstant != null || clusteringInstant != null || logCompactionInstant != null;
    if (readsPlan && (queryType != QueryType.SNAPSHOT || asOfInstant != null)) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          COMPACTION_INSTANT +
          "/" +
          CLUSTERING_INSTANT +
          "/" +
          LOG_COMPACTION_INSTANT +
          " read a plan's slices as a snapshot; " +
          "drop the query type and as.of.instant options"
      );
    }
    VIEW_KEYS.forEach(k -> {
      if (o.get(k) != null) {
        viewOptions.put(k, o.get(k));
      }
    });
    if (queryType == QueryType.INCREMENTAL && beginInstant == null) {
      throw new IllegalArgumentException(
        "hudi-meta: an incremental query needs " + BEGIN + " (the instant after which changes are returned)"
      );
    }
    if (queryType != QueryType.INCREMENTAL && (beginInstant != null || endInstant != null)) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          BEGIN +
          "/" +
          END +
          " apply to " +
          QUERY_TYPE +
          "=incremental only, but the query type is " +
          queryType.name().toLowerCase(Locale.ROOT)
      );
    }
    if (queryType == QueryType.INCREMENTAL && asOfInstant != null) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          AS_OF +
          " (time travel) cannot be combined with an " +
          "incremental query; use " +
          END +
          " to bound it"
      );
    }
  }

  /** The hoodie.filesystem.view.* keys given: how the synced view keeps the table's files. */
  public Map<String, String> viewOptions() {
    return Map.copyOf(viewOptions);
  }

  /** Whether these options plan one micro-batch of a streaming read ({@link #incremental}). */
  public boolean streamBatch() {
    return streamBatch;
  }

  /** Whether options ask for Hudi's CDC format (any query type: the scan then says what else it needs). */
  public static boolean asksForChanges(Map<String, String> o) {
    String format = o.get(INCREMENTAL_FORMAT);
    return format != null && format.trim().equalsIgnoreCase("cdc");
  }

  private static boolean cdc(String format) {
    return switch (format.trim().toLowerCase(Locale.ROOT)) {
      case "cdc" -> true;
      case "latest_state" -> false;
      default -> throw new IllegalArgumentException(
        "hudi-meta: " + INCREMENTAL_FORMAT + "=" + format + " is not a format; use latest_state or cdc"
      );
    };
  }

  /** These options as a snapshot query as of {@code instant} (a CDC query reads the table before and after a commit). */
  public Map<String, String> snapshotAsOf(String instant) {
    return with(Map.of(AS_OF, instant), INCREMENTAL_FORMAT);
  }

  /** These options as an incremental query of the commits in (begin, end]: one micro-batch of a streaming read. */
  public ReadOptions incremental(String begin, String end) {
    Map<String, String> o = with(Map.of(QUERY_TYPE, "incremental", BEGIN, begin, END, end));
    ReadOptions batch = new ReadOptions(new org.apache.spark.sql.util.CaseInsensitiveStringMap(o));
    batch.streamBatch = true;
    return batch;
  }

  /**
   * The given options with the query's range (type, begin, end, as-of) and {@code dropped} replaced by
   * {@code set}; keys compare case-insensitively, as Spark's options do.
   */
  private Map<String, String> with(Map<String, String> set, String... dropped) {
    Set<String> replaced = new HashSet<>(Set.of(QUERY_TYPE, BEGIN, END, AS_OF));
    replaced.addAll(Arrays.asList(dropped));
    Map<String, String> o = new HashMap<>(given);
    o.keySet().removeIf(k -> replaced.stream().anyMatch(k::equalsIgnoreCase));
    o.putAll(set);
    return o;
  }

  /** Options as Spark passes them (case-insensitive keys, lower-cased). */
  public static ReadOptions parse(Map<String, String> options) {
    OptionKeys.check(options, HONOURED);
    BlockCache.shared().configure(options::get); // metadata-table reads of this JVM
    return new ReadOptions(options);
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.addAll(b);
    return Set.copyOf(out);
  }

  private static String required(Map<String, String> o, String key) {
    String v = o.get(key);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException(
        "hudi-meta: no table path given; use .load(\"/path/to/table\") or " + "option(\"path\", ...)"
      );
    }
    return v;
  }

  private static QueryType queryType(String v) {
    String norm = v.trim().toUpperCase(Locale.ROOT);
    for (QueryType t : QueryType.values()) {
      if (t.name().equals(norm)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
      "hudi-meta: " +
        QUERY_TYPE +
        "=" +
        v +
        " is not valid; valid values: " +
        Arrays.toString(new String[] { "snapshot", "read_optimized", "incremental" })
    );
  }

  private static int count(Map<String, String> o, String key, int dflt) {
    String v = o.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new IllegalArgumentException("hudi-meta: " + key + "=" + v + " is not valid; expected a count >= 0");
  }

  private static boolean bool(Map<String, String> o, String key, boolean dflt) {
    String v = o.get(key);
    if (v == null) {
      return dflt;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException("hudi-meta: " + key + "=" + v + " is not valid; valid values: true, false");
  }
}
