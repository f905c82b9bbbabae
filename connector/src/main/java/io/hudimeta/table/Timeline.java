package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.hudimeta.hfile.Opened;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The active timeline of a table: one {@link Instant} per requested time, in its latest state.
 *
 * <p>File names (docs/format.md §4): layout 2 keeps instants in {@code .hoodie/timeline/} as
 * {@code <t>.<action>.requested|inflight} and completed {@code <t>_<c>.<action>}; layout 1 keeps them
 * in {@code .hoodie/} with completed {@code <t>.<action>}. In both, a commit's inflight file is
 * {@code <t>.inflight}. Other files (hoodie.properties, history/, archived/, .aux...) are ignored.
 * Files older than the first active commit are treated as committed (archived), as Hudi does. The layout-2
 * timeline history ({@link ArchivedTimeline}) is read only by queries that reach before the active timeline:
 * time travel to an archived instant, incremental reads of archived commits ({@link #archived}); the layout-1
 * archive is not read.
 */
public final class Timeline {

  /** Metadata keys of rollback and restore instants that list the undone instants. */
  private static final List<String> UNDONE_KEYS = List.of(
    "commitsRollback",
    "instantsRollback",
    "instantsToRollback",
    "restoreInstantInfo"
  );
  /** {@code <requested>[_<completion>]<extension>}; what follows the time(s) must be a loaded extension. */
  private static final Pattern NAME = Pattern.compile("([0-9]+)(?:_([0-9]+))?(\\..+)");
  /**
   * Per layout, the extensions of the instant files Hudi's active timeline loads
   * (ActiveTimelineV1/V2.VALID_EXTENSIONS_IN_ACTIVE_TIMELINE) with their action and state: a completed
   * compaction, log compaction or clustering carries its completed action; clustering files exist only in
   * layout 2; a commit's inflight is plain {@code .inflight}.
   */
  private static final List<Map<String, Map.Entry<String, Instant.State>>> EXTENSIONS = List.of(
    extensions(1),
    extensions(2)
  );

  private final FileSystem fs;
  private final TableConfig config;
  private final Path dir;
  private final List<Instant> instants;
  private final Map<String, Instant> byTime = new HashMap<>();
  private final Map<String, JsonNode> contents = new ConcurrentHashMap<>();
  /**
   * Listed instant files by name: read without a HEAD request to learn their length again; their length and
   * modification time ({@link #stamp}), with the path, are a cache key.
   */
  private final Map<String, FileStatus> listed = new HashMap<>();
  /**
   * Commit metadata parsed before, across plans and timelines: a completed instant file never
   * changes, and re-parsing a commit of many files on every plan dominates planning a big table.
   */
  private static final Map<String, CommitMetadata> PARSED = Collections.synchronizedMap(
    new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, CommitMetadata> eldest) {
        return size() > 256;
      }
    }
  );
  private final Map<String, Visibility> visibilities = new ConcurrentHashMap<>();
  private volatile Set<String> rolledBack;
  private volatile ArchivedTimeline archived;

  private Timeline(FileSystem fs, TableConfig config, Path dir, List<Instant> instants) {
    this.fs = fs;
    this.config = config;
    this.dir = dir;
    this.instants = Collections.unmodifiableList(instants);
    // by requested time, the write a savepoint shares its time with (collapse puts the savepoint after it)
    instants.forEach(i -> byTime.putIfAbsent(i.requestedTime(), i));
  }

  /** Lists the timeline directory of the table at {@code basePath} once. */
  public static Timeline load(FileSystem fs, Path basePath, TableConfig config) {
    return load(fs, basePath, config, null);
  }

  /**
   * {@link #load(FileSystem, Path, TableConfig)}, keeping what {@code previous} (an earlier load of the
   * same table) decoded of every instant file listed again with the same length and modification time:
   * a synced view reads only the instants that are new (RFC-03).
   */
  public static Timeline load(FileSystem fs, Path basePath, TableConfig config, Timeline previous) {
    Path dir = config.timelinePath(basePath);
    FileStatus[] statuses;
    try {
      statuses = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      statuses = new FileStatus[0];
    } catch (IOException e) {
      throw new HudiTableException("cannot list timeline directory " + dir + ": " + e.getMessage(), e);
    }
    List<String> names = new ArrayList<>();
    Map<String, FileStatus> listed = new HashMap<>();
    for (FileStatus status : statuses) {
      if (status.isFile()) {
        names.add(status.getPath().getName());
        listed.put(status.getPath().getName(), status);
      }
    }
    Timeline timeline = new Timeline(fs, config, dir, collapse(names, config.timelineLayoutVersion()));
    timeline.listed.putAll(listed);
    if (previous != null && previous.dir.equals(dir)) {
      previous.contents.forEach((name, json) -> {
        String stamp = timeline.stamp(name);
        if (stamp != null && stamp.equals(previous.stamp(name))) {
          timeline.contents.put(name, json);
        }
      });
    }
    return timeline;
  }

  /**
   * Keeps, per requested time, the file showing the most advanced state. A savepoint takes the requested time
   * of the commit it keeps: it is an instant of its own beside that commit, after it (as Apache Hudi orders
   * instants of one time by action), so both count in the timeline hash.
   */
  static List<Instant> collapse(Collection<String> fileNames, int layoutVersion) {
    Map<String, Instant> latest = new HashMap<>();
    for (String name : new TreeSet<>(fileNames)) {
      Instant instant = parseFileName(name, layoutVersion);
      if (instant == null) {
        continue;
      }
      String key = instant.requestedTime() + (isSavepoint(instant) ? "+" + Instant.SAVEPOINT : "");
      Instant seen = latest.get(key);
      if (seen == null || instant.state().compareTo(seen.state()) > 0) {
        latest.put(key, instant);
      }
    }
    List<Instant> sorted = new ArrayList<>(latest.values());
    sorted.sort(Comparator.comparing(Instant::requestedTime).thenComparing(Timeline::isSavepoint));
    return sorted;
  }

  private static boolean isSavepoint(Instant instant) {
    return instant.action().equals(Instant.SAVEPOINT);
  }

  /**
   * The instant a timeline file name stands for in that layout (1: table version 6, 2: 8+), or null if
   * Hudi does not load it as an instant (tests/conformance/instant_file_names.json). A layout-2 name without
   * completion time is a completed 0.x instant, as in Hudi.
   */
  public static Instant parseFileName(String name, int layoutVersion) {
    Matcher m = NAME.matcher(name);
    if (!m.matches() || (layoutVersion == 1 && m.group(2) != null)) {
      return null;
    }
    Map.Entry<String, Instant.State> found = EXTENSIONS.get(layoutVersion == 1 ? 0 : 1).get(m.group(3));
    if (found == null) {
      return null;
    }
    String completion = found.getValue() == Instant.State.COMPLETED ? m.group(2) : null;
    return new Instant(m.group(1), completion, found.getKey(), found.getValue(), name);
  }

  private static Map<String, Map.Entry<String, Instant.State>> extensions(int layoutVersion) {
    Map<String, Map.Entry<String, Instant.State>> out = new HashMap<>();
    for (String a : List.of(
      Instant.COMMIT,
      Instant.DELTA_COMMIT,
      Instant.REPLACE_COMMIT,
      Instant.CLEAN,
      Instant.ROLLBACK,
      Instant.RESTORE,
      Instant.INDEXING,
      Instant.SCHEMA_COMMIT,
      Instant.SAVEPOINT
    )) {
      out.put("." + a, Map.entry(a, Instant.State.COMPLETED));
    }
    List<String> pending = new ArrayList<>(
      List.of(
        Instant.DELTA_COMMIT,
        Instant.REPLACE_COMMIT,
        Instant.CLEAN,
        Instant.ROLLBACK,
        Instant.RESTORE,
        Instant.INDEXING,
        Instant.SCHEMA_COMMIT,
        Instant.COMPACTION,
        Instant.LOG_COMPACTION
      )
    );
    if (layoutVersion == 2) {
      pending.add(Instant.CLUSTERING);
    }
    for (String a : pending) {
      out.put("." + a + ".requested", Map.entry(a, Instant.State.REQUESTED));
      out.put("." + a + ".inflight", Map.entry(a, Instant.State.INFLIGHT));
    }
    out.put(".commit.requested", Map.entry(Instant.COMMIT, Instant.State.REQUESTED));
    out.put(".inflight", Map.entry(Instant.COMMIT, Instant.State.INFLIGHT));
    out.put(".savepoint.inflight", Map.entry(Instant.SAVEPOINT, Instant.State.INFLIGHT));
    return Map.copyOf(out);
  }

  public TableConfig config() {
    return config;
  }

  /** 1 (v6: no completion times) or 2 (v8+). */
  public int layoutVersion() {
    return config.timelineLayoutVersion();
  }

  public Path directory() {
    return dir;
  }

  // ---- instant queries ----

  public List<Instant> all() {
    return instants;
  }

  public List<Instant> completed() {
    return filter(Instant::isCompleted);
  }

  /** Completed commit, deltacommit and replacecommit instants (compaction and clustering included). */
  public List<Instant> completedCommits() {
    return filter(i -> i.isCompleted() && i.isCommitLike());
  }

  public List<Instant> pending() {
    return filter(i -> !i.isCompleted());
  }

  private List<Instant> filter(Predicate<Instant> keep) {
    List<Instant> out = new ArrayList<>();
    for (Instant i : instants) {
      if (keep.test(i)) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * The time incremental queries range over (completion time in layout 2, requested time in layout 1) of the
   * latest completed commit that was not rolled back; null if there is none.
   */
  public String latestCommitTime() {
    List<Instant> commits = commitsBetween(null, null);
    return commits.isEmpty() ? null : orderKey(commits.get(commits.size() - 1));
  }

  /** The completed commit-like instant with the greatest requested time, or null on an empty timeline. */
  public Instant lastCompleted() {
    List<Instant> commits = completedCommits();
    return commits.isEmpty() ? null : commits.get(commits.size() - 1);
  }

  /** The instant with that requested time in any state, or null. */
  public Instant find(String requestedTime) {
    return byTime.get(requestedTime);
  }

  /** The completed instant (any action) with that requested time, or null. */
  public Instant findCompleted(String requestedTime) {
    Instant i = byTime.get(requestedTime);
    return i != null && i.isCompleted() ? i : null;
  }

  public boolean containsCompleted(String requestedTime) {
    return findCompleted(requestedTime) != null;
  }

  /** Completion time of a completed layout-2 instant; null otherwise. */
  public String completionTime(String requestedTime) {
    Instant i = findCompleted(requestedTime);
    return i == null ? null : i.completionTime();
  }

  // ---- instant contents ----

  /**
   * The instant file decoded to a JSON tree (Avro or JSON alike); an empty file gives {@code {}}. An archived
   * instant ({@link #archived}) is read from the timeline history.
   */
  public JsonNode metadata(Instant instant) {
    if (ArchivedTimeline.isHistoryFile(instant.fileName())) {
      return archived().metadata(instant);
    }
    return readFile(instant.fileName());
  }

  /** {@link #metadata} as a JSON string (handy through py4j). */
  public String metadataJson(Instant instant) {
    return metadata(instant).toString();
  }

  public CommitMetadata commitMetadata(Instant instant) {
    if (ArchivedTimeline.isHistoryFile(instant.fileName())) {
      return CommitMetadata.fromJson(archived().metadata(instant));
    }
    String stamp = instant.isCompleted() ? stamp(instant.fileName()) : null;
    if (stamp == null) {
      return CommitMetadata.fromJson(metadata(instant));
    }
    String key = new Path(dir, instant.fileName()) + "#" + stamp;
    CommitMetadata cached = PARSED.get(key);
    if (cached == null) {
      cached = CommitMetadata.fromJson(metadata(instant));
      PARSED.put(key, cached);
    }
    return cached;
  }

  /**
   * Whether this timeline's directory, listed again as {@code other}, holds the same files with the same lengths
   * and modification times: false once any instant file was written, rewritten or removed since.
   */
  public boolean sameFilesAs(Timeline other) {
    return (
      listed.keySet().equals(other.listed.keySet()) &&
      listed
        .keySet()
        .stream()
        .allMatch(name -> stamp(name).equals(other.stamp(name)))
    );
  }

  /** "length:modification time" of a listed instant file, null when the listing did not see it. */
  private String stamp(String fileName) {
    FileStatus status = listed.get(fileName);
    return status == null ? null : status.getLen() + ":" + status.getModificationTime();
  }

  /** Whether the listing that made this timeline saw that file (no storage call). */
  private boolean listed(String fileName) {
    return listed.containsKey(fileName);
  }

  /**
   * Apache Hudi's timeline hash (HoodieDefaultTimeline): hex SHA-256 over {@code <requested>_<action>_<STATE>}
   * of each instant in order. A client sends it with its last instant so a view server can tell it is behind.
   */
  public String hash() {
    return hash(instants);
  }

  /** {@link #hash()} of a list of instants in requested-time order. */
  public static String hash(List<Instant> instants) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (Instant i : instants) {
        md.update((i.requestedTime() + "_" + i.action() + "_" + i.state().name()).getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
  }

  JsonNode readFile(String fileName) {
    return contents.computeIfAbsent(fileName, name -> {
      Path path = new Path(dir, name);
      FileStatus status = listed.get(name);
      try (InputStream in = status != null ? Opened.withStatus(fs, status) : fs.open(path)) {
        return InstantContent.parse(in.readAllBytes(), path.toString());
      } catch (FileNotFoundException e) {
        return fromHistory(name, path);
      } catch (IOException e) {
        throw new HudiTableException("cannot read instant file " + path + ": " + e.getMessage(), e);
      }
    });
  }

  /**
   * A listed instant file that is gone: archival moved it to the timeline history after the listing (an
   * instant's content never changes, so this snapshot stays right). Read the history as it is now, not the
   * one this timeline may have cached: the completed file's metadata, or a pending file's plan.
   */
  private JsonNode fromHistory(String name, Path path) {
    Instant instant = parseFileName(name, layoutVersion());
    ArchivedTimeline history = layoutVersion() >= 2 ? ArchivedTimeline.load(fs, historyDir()) : null;
    if (instant != null && history != null) {
      for (Instant done : history.instants(instant.requestedTime(), instant.requestedTime())) {
        ArchivedTimeline.Row row = history.row(done);
        boolean completed = instant.isCompleted();
        if (row != null && (!completed || done.action().equals(instant.action()))) {
          byte[] bytes = completed ? row.metadata() : row.plan();
          return InstantContent.parse(
            bytes == null ? new byte[0] : bytes,
            path + " (from " + history.directory() + ")"
          );
        }
      }
    }
    throw new HudiTableException(
      "cannot read instant file " +
        path +
        ": it was listed but is gone and is not in the timeline history (a writer removed it since the timeline " +
        "was loaded); load the table again"
    );
  }

  /**
   * Requested times undone by completed rollbacks ({@code commitsRollback}, {@code instantsRollback})
   * and restores ({@code instantsToRollback}, {@code restoreInstantInfo}).
   */
  public Set<String> rolledBackInstants() {
    if (rolledBack == null) {
      Set<String> times = new HashSet<>();
      for (Instant i : completed()) {
        if (i.action().equals(Instant.ROLLBACK) || i.action().equals(Instant.RESTORE)) {
          JsonNode meta = metadata(i);
          for (String key : UNDONE_KEYS) {
            meta.path(key).forEach(n -> times.add(n.isObject() ? n.path("commitTime").asText() : n.asText()));
          }
        }
      }
      rolledBack = Collections.unmodifiableSet(times);
    }
    return rolledBack;
  }

  /** Operations of the compaction plan {@code <t>.compaction.requested}; empty when there is none. */
  public List<CompactionOperation> compactionPlan(String instantTime) {
    return compactionPlan(instantTime, Instant.COMPACTION);
  }

  /**
   * Operations of the plan {@code <t>.<action>.requested} of a compaction or a log compaction (both are
   * HoodieCompactionPlans); empty when there is none.
   */
  public List<CompactionOperation> compactionPlan(String instantTime, String action) {
    String name = instantTime + "." + action + ".requested";
    if (byTime.get(instantTime) == null || !listed(name)) {
      return List.of();
    }
    List<CompactionOperation> ops = new ArrayList<>();
    for (JsonNode op : readFile(name).path("operations")) {
      String data = CommitMetadata.text(op.get("dataFilePath"));
      ops.add(
        new CompactionOperation(
          instantTime,
          CommitMetadata.text(op.get("partitionPath")),
          CommitMetadata.text(op.get("fileId")),
          CommitMetadata.text(op.get("baseInstantTime")),
          data == null || data.isEmpty() ? null : lastSegment(data),
          fileNames(op.get("deltaFilePaths"))
        )
      );
    }
    return ops;
  }

  /**
   * The input file slices of the clustering plan of pending instant {@code instantTime} ({@code
   * <t>.clustering.requested}, or {@code <t>.replacecommit.requested} as older writers name it), one operation
   * per slice; empty when there is none.
   */
  public List<CompactionOperation> clusteringPlan(String instantTime) {
    List<CompactionOperation> ops = new ArrayList<>();
    for (String action : List.of("clustering", Instant.REPLACE_COMMIT)) {
      String name = instantTime + "." + action + ".requested";
      if (byTime.get(instantTime) == null || !listed(name)) {
        continue;
      }
      for (JsonNode group : readFile(name).path("clusteringPlan").path("inputGroups")) {
        for (JsonNode slice : group.path("slices")) {
          String data = CommitMetadata.text(slice.get("dataFilePath"));
          String base = data == null || data.isEmpty() ? null : lastSegment(data);
          ops.add(
            new CompactionOperation(
              instantTime,
              CommitMetadata.text(slice.get("partitionPath")),
              CommitMetadata.text(slice.get("fileId")),
              base == null || FileNames.parseBaseFile(base, -1) == null
                ? null
                : FileNames.parseBaseFile(base, -1).instantTime(),
              base,
              fileNames(slice.get("deltaFilePaths"))
            )
          );
        }
      }
    }
    return ops;
  }

  /** Operations of every compaction that is requested or inflight. */
  public List<CompactionOperation> pendingCompactions() {
    List<CompactionOperation> ops = new ArrayList<>();
    for (Instant i : pending()) {
      if (i.action().equals(Instant.COMPACTION)) {
        ops.addAll(compactionPlan(i.requestedTime()));
      }
    }
    return ops;
  }

  private static List<String> fileNames(JsonNode paths) {
    List<String> names = new ArrayList<>();
    if (paths != null) {
      paths.forEach(p -> names.add(lastSegment(p.asText())));
    }
    return names;
  }

  static String lastSegment(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /**
   * Avro schema of the table: {@code extraMetadata["schema"]} of the most recently completed commit
   * that has one (completion order in layout 2), else the table's create schema; null if neither.
   */
  public String latestSchema() {
    List<Instant> commits = completedCommits();
    commits.removeIf(i -> rolledBackInstants().contains(i.requestedTime()));
    commits.sort(Comparator.comparing(this::orderKey));
    for (int k = commits.size() - 1; k >= 0; k--) {
      String schema = commitMetadata(commits.get(k)).schema();
      if (schema != null) {
        return schema;
      }
    }
    return config.createSchema();
  }

  /** Completion time in layout 2, requested time in layout 1: the order in which commits became visible. */
  private String orderKey(Instant i) {
    return i.completionTime() != null ? i.completionTime() : i.requestedTime();
  }

  // ---- the timeline history ----

  private Path historyDir() {
    return new Path(dir, config.get(ArchivedTimeline.HISTORY_PATH, "history"));
  }

  /**
   * The timeline history of this table (layout 2), loaded on first use: its version file and manifest, then
   * only the data files a query needs. Empty for layout 1 and for tables never archived.
   */
  public ArchivedTimeline archived() {
    ArchivedTimeline a = archived;
    if (a == null) {
      synchronized (this) {
        if (archived == null) {
          archived =
            layoutVersion() >= 2 ? ArchivedTimeline.load(fs, historyDir()) : ArchivedTimeline.empty(fs, historyDir());
        }
        a = archived;
      }
    }
    return a;
  }

  /**
   * Archived completed commits, deltacommits and replacecommits requested at or before {@code endInclusive}
   * (null: all), not rolled back, in requested-time order. Reads the history.
   */
  public List<Instant> archivedCommits(String endInclusive) {
    List<Instant> out = new ArrayList<>();
    for (Instant i : archived().instants(null, endInclusive)) {
      if (
        i.isCommitLike() && !rolledBackInstants().contains(i.requestedTime()) && byTime.get(i.requestedTime()) == null
      ) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * Whether a query starting after {@code beginExclusive} (null: from the start) may need archived commits:
   * it begins before the earliest completion (layout 1: requested) time of the active completed commits, or
   * there is none. Answers from the active timeline alone.
   */
  public boolean reachesHistory(String beginExclusive) {
    if (layoutVersion() < 2) {
      return false;
    }
    String first = null;
    for (Instant i : completedCommits()) {
      String t = orderKey(i);
      first = first == null || t.compareTo(first) < 0 ? t : first;
    }
    return beginExclusive == null || first == null || beginExclusive.compareTo(first) < 0;
  }

  /**
   * {@link #commitsBetween}, plus the archived commits in that range when the range {@link #reachesHistory
   * reaches the history} (their metadata then comes from there).
   */
  public List<Instant> commitsBetweenWithHistory(String beginExclusive, String endInclusive) {
    List<Instant> out = commitsBetween(beginExclusive, endInclusive);
    if (!reachesHistory(beginExclusive)) {
      return out;
    }
    for (Instant i : archivedCommits(endInclusive)) {
      String t = orderKey(i);
      boolean afterBegin = beginExclusive == null || t.compareTo(beginExclusive) > 0;
      boolean beforeEnd = endInclusive == null || t.compareTo(endInclusive) <= 0;
      if (afterBegin && beforeEnd) {
        out.add(i);
      }
    }
    out.sort(Comparator.comparing(this::orderKey));
    return out;
  }

  /**
   * {@code active} (requested times of active instants a query sees) widened by Hudi's rule for archived
   * instants: one requested at or before {@code asOf} (null: any) and before the first active commit counts as
   * committed unless the active timeline shows it pending or rolled back. For filtering log blocks by their
   * instant without reading the history: log files of archived delta commits stay readable. Serializable.
   */
  public Set<String> withArchivedInstants(Set<String> active, String asOf) {
    Set<String> excluded = new HashSet<>(rolledBackInstants());
    String first = null;
    for (Instant i : instants) {
      if (!i.isCompleted()) {
        excluded.add(i.requestedTime());
      } else if (i.isCommitLike() && first == null) {
        first = i.requestedTime();
      }
    }
    return new CommittedInstants(active, first, asOf, excluded);
  }

  /** A set that also contains instants older than the first active commit (see {@link #withArchivedInstants}). */
  static final class CommittedInstants extends AbstractSet<String> implements Serializable {

    private static final long serialVersionUID = 1L;
    private final HashSet<String> active;
    private final String firstCommit;
    private final String asOf;
    private final HashSet<String> excluded;

    CommittedInstants(Set<String> active, String firstCommit, String asOf, Set<String> excluded) {
      this.active = new HashSet<>(active);
      this.firstCommit = firstCommit;
      this.asOf = asOf;
      this.excluded = new HashSet<>(excluded);
    }

    @Override
    public boolean contains(Object o) {
      if (!(o instanceof String t)) {
        return false;
      }
      if (active.contains(t)) {
        return true;
      }
      boolean archived = firstCommit != null && t.compareTo(firstCommit) < 0 && !excluded.contains(t);
      return archived && (asOf == null || t.compareTo(asOf) <= 0);
    }

    /** Iterates the active instants only (the archived ones are not known without reading the history). */
    @Override
    public Iterator<String> iterator() {
      return Collections.unmodifiableSet(active).iterator();
    }

    @Override
    public int size() {
      return active.size();
    }
  }

  // ---- incremental support ----

  /**
   * Completed, not rolled-back commit-like instants whose completion time (layout 2) or requested time
   * (layout 1) lies in {@code (beginExclusive, endInclusive]}; either bound may be null for open.
   * Sorted by that time.
   */
  public List<Instant> commitsBetween(String beginExclusive, String endInclusive) {
    List<Instant> out = new ArrayList<>();
    for (Instant i : completedCommits()) {
      String t = orderKey(i);
      boolean afterBegin = beginExclusive == null || t.compareTo(beginExclusive) > 0;
      boolean beforeEnd = endInclusive == null || t.compareTo(endInclusive) <= 0;
      if (afterBegin && beforeEnd && !rolledBackInstants().contains(i.requestedTime())) {
        out.add(i);
      }
    }
    out.sort(Comparator.comparing(this::orderKey));
    return out;
  }

  /**
   * Files named by the write stats of these commits, in commit order, leaving out file groups that a
   * replacecommit among them replaced (an insert_overwrite also lists the replaced groups' files).
   */
  public List<WrittenFile> filesWrittenBy(List<Instant> commits) {
    Map<Instant, CommitMetadata> metas = new LinkedHashMap<>();
    Set<FileGroupId> replaced = new HashSet<>();
    for (Instant i : commits) {
      CommitMetadata meta = commitMetadata(i);
      metas.put(i, meta);
      meta.partitionToReplaceFileIds().forEach((p, ids) -> ids.forEach(id -> replaced.add(new FileGroupId(p, id))));
    }
    List<WrittenFile> files = new ArrayList<>();
    metas.forEach((instant, meta) -> {
      for (CommitMetadata.WriteStat s : meta.allWriteStats()) {
        boolean named = s.fileName() != null && s.fileId() != null && !s.fileId().isEmpty();
        if (named && !replaced.contains(new FileGroupId(s.partitionPath(), s.fileId()))) {
          files.add(
            new WrittenFile(instant.requestedTime(), s.partitionPath(), s.fileId(), s.fileName(), s.fileSizeInBytes())
          );
        }
      }
    });
    return files;
  }

  // ---- visibility ----

  /** What a reader may see as of an instant time (null = latest); cached per time. */
  public Visibility visibility(String asOf) {
    return visibilities.computeIfAbsent(asOf == null ? "" : asOf, k -> new Visibility(this, asOf));
  }

  /**
   * File groups replaced by completed replacecommits (insert_overwrite, clustering) requested at or
   * before {@code asOf} (null = all), mapped to the replacing instant; the later one wins on conflicts.
   */
  public Map<FileGroupId, String> replacedFileGroups(String asOf) {
    Map<FileGroupId, String> replaced = new HashMap<>();
    for (Instant i : completedCommits()) {
      boolean inRange = asOf == null || i.requestedTime().compareTo(asOf) <= 0;
      if (i.action().equals(Instant.REPLACE_COMMIT) && inRange && !rolledBackInstants().contains(i.requestedTime())) {
        commitMetadata(i)
          .partitionToReplaceFileIds()
          .forEach((p, ids) ->
            ids.forEach(id ->
              replaced.merge(new FileGroupId(p, id), i.requestedTime(), (a, b) -> a.compareTo(b) >= 0 ? a : b)
            )
          );
      }
    }
    return replaced;
  }

  @Override
  public String toString() {
    return "Timeline(" + dir + ", " + instants.size() + " instants)";
  }
}
