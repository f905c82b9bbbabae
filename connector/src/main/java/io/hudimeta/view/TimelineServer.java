package io.hudimeta.view;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.hudimeta.HudiException;
import io.hudimeta.table.FileGroup;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.Instant;
import io.hudimeta.table.Timeline;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Apache Hudi's timeline service (RFC-03) over this JVM's synced views ({@link TableViews}): an HTTP
 * server answering the file-system view questions of Hudi's RemoteHoodieTableFileSystemView, under its
 * paths, parameters and DTO field names ({@link ViewJson}), so writers on many hosts ask one view that
 * pays for a table's files once and then for new instants only.
 *
 * <p>Every request names the table ({@code basepath}) and the client's view of the timeline ({@code
 * lastinstantts}, {@code timelinehash}): a view that is behind syncs before answering, one that is
 * current answers without a storage call. Answers carry the last instant and hash they were computed
 * on in the headers {@code lastinstantts} and {@code timelinehash} (and as fields in our batch answer).
 * Errors are JSON {@code {"error": message}}: 400 for a bad request or a table that cannot be read,
 * 404 for an unknown path, 405 for a wrong method, 500 otherwise; no stack trace leaves the server.
 */
public final class TimelineServer {

  public static final String BASE_URL = "/v1/hoodie/view";
  public static final String LATEST_PARTITION_SLICES_URL = BASE_URL + "/slices/partition/latest/";
  public static final String LATEST_SLICES_BEFORE_ON_INSTANT_URL = BASE_URL + "/slices/beforeoron/latest/";
  public static final String LATEST_PARTITION_DATA_FILES_URL = BASE_URL + "/datafiles/latest/partition";
  public static final String LATEST_DATA_FILES_BEFORE_ON_INSTANT_URL = BASE_URL + "/datafiles/beforeoron/latest/";
  public static final String PENDING_COMPACTION_OPS_URL = BASE_URL + "/compactions/pending/";
  public static final String ALL_REPLACED_FILEGROUPS_BEFORE_OR_ON_URL = BASE_URL + "/filegroups/replaced/beforeoron/";
  public static final String ALL_REPLACED_FILEGROUPS_PARTITION_URL = BASE_URL + "/filegroups/replaced/partition/";
  public static final String LAST_INSTANT_URL = BASE_URL + "/timeline/instant/last";
  public static final String GET_TIMELINE_HASH_URL = BASE_URL + "/timeline/hash";
  public static final String REFRESH_TABLE_URL = BASE_URL + "/refresh/";
  /** Ours: latest slices of many partitions at once (POST, body a JSON list of partitions; null = all). */
  public static final String LATEST_SLICES_PARTITIONS_URL = BASE_URL + "/slices/partitions/latest/";

  public static final String BASEPATH_PARAM = "basepath";
  public static final String PARTITION_PARAM = "partition";
  public static final String MAX_INSTANT_PARAM = "maxinstant";
  public static final String LAST_INSTANT_TS = "lastinstantts";
  public static final String TIMELINE_HASH = "timelinehash";

  public static final String THREADS = "hoodie.embed.timeline.server.threads";
  public static final String REUSE = "hoodie.embed.timeline.server.reuse.enabled";
  /** Threads when {@value #THREADS} is -1 (automatic): requests are short, and views serialise syncs. */
  static final int AUTO_THREADS = 4;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();
  private static final List<TimelineServer> EMBEDDED = new ArrayList<>();
  private static final String USAGE =
    "usage: TimelineServer <basePath> --port N [--view-type MEMORY|SPILLABLE_DISK] " +
    "[--spillable-mem BYTES] [--spillable-dir DIR]";

  private final HttpServer http;
  private final ExecutorService pool;
  private final Configuration conf;
  private final ViewStorageConfig storage;
  private final Map<String, Route> routes = new LinkedHashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicBoolean stopped = new AtomicBoolean();

  private TimelineServer(HttpServer http, ExecutorService pool, Configuration conf, ViewStorageConfig storage) {
    this.http = http;
    this.pool = pool;
    this.conf = conf;
    this.storage = storage;
    route("GET", LATEST_PARTITION_SLICES_URL, c -> slices(c, null));
    route("GET", LATEST_SLICES_BEFORE_ON_INSTANT_URL, c -> slices(c, c.required(MAX_INSTANT_PARAM)));
    route("GET", LATEST_PARTITION_DATA_FILES_URL, c -> baseFiles(c, null));
    route("GET", LATEST_DATA_FILES_BEFORE_ON_INSTANT_URL, c -> baseFiles(c, c.required(MAX_INSTANT_PARAM)));
    route("GET", PENDING_COMPACTION_OPS_URL, this::pendingCompactions);
    route("GET", ALL_REPLACED_FILEGROUPS_BEFORE_OR_ON_URL, c -> replaced(c, c.param(MAX_INSTANT_PARAM)));
    route("GET", ALL_REPLACED_FILEGROUPS_PARTITION_URL, c -> replaced(c, null));
    route("GET", LAST_INSTANT_URL, this::lastInstant);
    route("GET", GET_TIMELINE_HASH_URL, c -> TextNode.valueOf(c.timeline(c.view().timeline()).hash()));
    route("POST", REFRESH_TABLE_URL, this::refresh);
    route("POST", LATEST_SLICES_PARTITIONS_URL, this::slicesOfPartitions);
    http.createContext("/", this::handle);
    http.setExecutor(pool);
  }

  // ---- lifecycle ----

  /**
   * A server on {@code port} (0: any free port), started. {@code options}: the view storage keys of
   * {@link ViewStorageConfig} and {@value #THREADS}; {@code conf} reaches the tables' file systems.
   */
  public static TimelineServer start(Configuration conf, int port, Map<String, String> options) {
    ViewStorageConfig storage = ViewStorageConfig.of(options);
    int threads = threads(options.get(THREADS));
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot start the timeline server on port " + port + ": " + e, e);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      // daemon: an embedded server must not keep a finished driver alive
      Thread t = new Thread(r, "hudi-timeline-server-" + THREAD_IDS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    TimelineServer server = new TimelineServer(http, pool, conf, storage);
    http.start();
    return server;
  }

  private static int threads(String raw) {
    int n;
    try {
      n = raw == null ? -1 : Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      throw new HudiException(THREADS + "=" + raw + " is not valid; give a number of threads, or -1 for automatic");
    }
    if (n == 0 || n < -1) {
      throw new HudiException(THREADS + "=" + raw + " is not valid; give a number of threads, or -1 for automatic");
    }
    return n == -1 ? AUTO_THREADS : n;
  }

  public int port() {
    return http.getAddress().getPort();
  }

  /** Requests received so far, answered or refused. */
  public long requests() {
    return requests.get();
  }

  public boolean isRunning() {
    return !stopped.get();
  }

  /** Stops listening and ends the threads; later calls do nothing. */
  public void stop() {
    if (stopped.compareAndSet(false, true)) {
      http.stop(0);
      pool.shutdownNow();
    }
  }

  /**
   * The driver's embedded server (for executors and Python writers reached through py4j): started on
   * the first call, its port returned to later calls whose view storage options are the same while it
   * runs ({@value #REUSE}, default true; false starts another server per call). A call with other view
   * storage (say SPILLABLE_DISK after MEMORY) gets a server of its own: a server keeps its views in the
   * storage it was started with.
   */
  public static synchronized int startEmbedded(Configuration conf, int port, Map<String, String> options) {
    boolean reuse = !"false".equalsIgnoreCase(options.getOrDefault(REUSE, "true").trim());
    ViewStorageConfig wanted = ViewStorageConfig.of(options);
    EMBEDDED.removeIf(s -> !s.isRunning());
    for (TimelineServer running : reuse ? EMBEDDED : List.<TimelineServer>of()) {
      if (running.storage.equals(wanted) && (port == 0 || running.port() == port)) {
        return running.port();
      }
    }
    TimelineServer server = start(conf, port, options);
    EMBEDDED.add(server);
    return server.port();
  }

  /** Requests the running embedded servers answered (tests: a write went through the server). */
  public static synchronized long embeddedRequests() {
    return EMBEDDED.stream().mapToLong(TimelineServer::requests).sum();
  }

  /** Stops every embedded server. */
  public static synchronized void stopEmbedded() {
    EMBEDDED.forEach(TimelineServer::stop);
    EMBEDDED.clear();
  }

  // ---- requests ----

  private interface Handler {
    JsonNode answer(Call call) throws IOException;
  }

  private record Route(String method, Handler handler) {}

  private void route(String method, String path, Handler handler) {
    routes.put(normalize(path), new Route(method, handler));
  }

  /** Hudi's paths end in "/" or not, as they happen to: either form is accepted. */
  private static String normalize(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  /** A request that cannot be answered, and the status that says why. */
  private static final class RequestException extends RuntimeException {

    final int status;

    RequestException(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  private void handle(HttpExchange exchange) {
    requests.incrementAndGet();
    Call call = null;
    int status = 200;
    JsonNode body;
    try {
      String path = exchange.getRequestURI().getPath();
      Route route = routes.get(normalize(path));
      if (route == null) {
        throw new RequestException(404, "unknown path " + path + "; the view's paths start with " + BASE_URL);
      }
      if (!route.method().equals(exchange.getRequestMethod())) {
        throw new RequestException(405, path + " takes " + route.method() + ", not " + exchange.getRequestMethod());
      }
      call = new Call(exchange);
      body = route.handler().answer(call);
    } catch (RequestException e) {
      status = e.status;
      body = ViewJson.error(e.getMessage());
    } catch (HudiException | IllegalArgumentException e) {
      // no table there, a corrupt one, a bad instant time: the client's to fix
      status = 400;
      body = ViewJson.error(message(e));
    } catch (Exception | LinkageError | StackOverflowError e) {
      // answered, so the client is not left waiting for its timeout
      status = 500;
      body = ViewJson.error(message(e));
      System.err.println("hudi-meta timeline server: " + exchange.getRequestURI() + " failed: " + e);
    }
    respond(exchange, status, body, call == null ? null : call.answeredOn);
  }

  private static String message(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static void respond(HttpExchange exchange, int status, JsonNode body, Timeline answeredOn) {
    try (exchange) {
      byte[] bytes = MAPPER.writeValueAsBytes(body);
      exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
      if (answeredOn != null) {
        Instant last = answeredOn.lastCompleted();
        if (last != null) {
          exchange.getResponseHeaders().set(LAST_INSTANT_TS, last.requestedTime());
        }
        exchange.getResponseHeaders().set(TIMELINE_HASH, answeredOn.hash());
      }
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    } catch (IOException e) {
      // the client went away: nobody to answer
    }
  }

  /** One request: its parameters, the view it asks, and the timeline the answer was computed on. */
  private final class Call {

    final HttpExchange exchange;
    final Map<String, String> params = new HashMap<>();
    SyncedView synced;
    String basePath; // qualified
    Timeline answeredOn;

    Call(HttpExchange exchange) {
      this.exchange = exchange;
      String query = exchange.getRequestURI().getRawQuery();
      if (query != null) {
        for (String pair : query.split("&")) {
          int eq = pair.indexOf('=');
          String key = decode(eq < 0 ? pair : pair.substring(0, eq));
          params.putIfAbsent(key, eq < 0 ? "" : decode(pair.substring(eq + 1)));
        }
      }
    }

    private static String decode(String s) {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    String param(String name) {
      String v = params.get(name);
      return v == null || v.isEmpty() ? null : v;
    }

    String required(String name) {
      String v = param(name);
      if (v == null) {
        throw new RequestException(400, "missing query parameter " + name);
      }
      return v;
    }

    /** Hudi's default: the partition of a non-partitioned table. */
    String partition() {
      return params.getOrDefault(PARTITION_PARAM, "");
    }

    FileSystem fileSystem(Path base) {
      try {
        return base.getFileSystem(conf);
      } catch (IOException e) {
        throw new RequestException(400, "cannot reach " + base + ": " + e.getMessage());
      }
    }

    /** The table's view, synced first unless the client's last instant and hash show it current. */
    SyncedView view() {
      if (synced == null) {
        Path base = new Path(required(BASEPATH_PARAM));
        FileSystem fs = fileSystem(base);
        basePath = fs.makeQualified(base).toString();
        synced = TableViews.current(fs, base, storage, param(LAST_INSTANT_TS), param(TIMELINE_HASH));
      }
      return synced;
    }

    /** The table's qualified base path: the root of the full paths in answers. */
    String basePath() {
      view();
      return basePath;
    }

    FileSystemView view(Collection<String> partitions) {
      FileSystemView v = view().view(partitions);
      timeline(v.timeline());
      return v;
    }

    Timeline timeline(Timeline tl) {
      answeredOn = tl;
      return tl;
    }

    JsonNode body() throws IOException {
      try (InputStream in = exchange.getRequestBody()) {
        byte[] bytes = in.readAllBytes();
        try {
          return bytes.length == 0 ? F.nullNode() : MAPPER.readTree(bytes);
        } catch (IOException e) {
          throw new RequestException(400, "the body is not JSON: " + e.getMessage());
        }
      }
    }
  }

  // ---- answers ----

  private JsonNode slices(Call c, String asOf) {
    String partition = c.partition();
    return ViewJson.slices(c.basePath(), c.view(List.of(partition)).latestFileSlices(partition, asOf));
  }

  private JsonNode baseFiles(Call c, String asOf) {
    String partition = c.partition();
    ArrayNode out = F.arrayNode();
    for (FileSlice s : c.view(List.of(partition)).latestFileSlices(partition, asOf)) {
      if (s.baseFile() != null) {
        out.add(ViewJson.baseFile(c.basePath(), partition, s.baseFile()));
      }
    }
    return out;
  }

  private JsonNode pendingCompactions(Call c) {
    ArrayNode out = F.arrayNode();
    c.timeline(c.view().timeline())
      .pendingCompactions()
      .forEach(op -> out.add(ViewJson.compactionOp(op)));
    return out;
  }

  private JsonNode lastInstant(Call c) {
    Instant last = c.timeline(c.view().timeline()).lastCompleted();
    ArrayNode out = F.arrayNode();
    if (last != null) {
      out.add(ViewJson.instant(last));
    }
    return out;
  }

  private JsonNode refresh(Call c) {
    Path base = new Path(c.required(BASEPATH_PARAM));
    FileSystem fs = c.fileSystem(base);
    c.timeline(TableViews.synced(fs, base, storage).timeline());
    return BooleanNode.TRUE;
  }

  /** {"lastinstantts", "timelinehash", "slices": {partition: [FileSliceDTO]}}, partitions sorted. */
  private JsonNode slicesOfPartitions(Call c) throws IOException {
    JsonNode body = c.body();
    Collection<String> asked;
    if (body.isNull()) {
      asked = c.view().partitions();
    } else if (body.isArray()) {
      asked = new TreeSet<>();
      for (JsonNode p : body) {
        if (!p.isTextual()) {
          throw new RequestException(400, "the body must be a JSON list of partition paths; found " + p);
        }
        asked.add(p.asText());
      }
    } else {
      throw new RequestException(400, "the body must be a JSON list of partition paths, or null for every one");
    }
    FileSystemView view = c.view(asked);
    ObjectNode out = F.objectNode();
    Instant last = view.timeline().lastCompleted();
    out.put(LAST_INSTANT_TS, last == null ? null : last.requestedTime());
    out.put(TIMELINE_HASH, view.timeline().hash());
    ObjectNode slices = out.putObject("slices");
    for (String p : new TreeSet<>(asked)) {
      slices.set(p, ViewJson.slices(c.basePath(), view.latestFileSlices(p, null)));
    }
    return out;
  }

  /**
   * FileGroupDTOs of the groups replaced by replacecommits requested at or before {@code asOf} (null:
   * all), in the asked partition (every partition when the request names none), that still have files:
   * their slices as they stood just before the replacing instant.
   */
  private JsonNode replaced(Call c, String asOf) {
    String only = c.params.containsKey(PARTITION_PARAM) ? c.partition() : null;
    Set<String> partitions = new TreeSet<>();
    if (only != null) {
      partitions.add(only);
    } else {
      c.view()
        .timeline()
        .replacedFileGroups(asOf)
        .keySet()
        .forEach(id -> partitions.add(id.partitionPath()));
    }
    FileSystemView view = c.view(partitions);
    // partition -> replacing instant -> file ids, from the timeline the files were taken with
    Map<String, Map<String, Set<String>>> byPartition = new TreeMap<>();
    view
      .timeline()
      .replacedFileGroups(asOf)
      .forEach((id, instant) -> {
        if (partitions.contains(id.partitionPath())) {
          byPartition
            .computeIfAbsent(id.partitionPath(), p -> new TreeMap<>())
            .computeIfAbsent(instant, i -> new TreeSet<>())
            .add(id.fileId());
        }
      });
    ObjectNode timeline = ViewJson.timeline(view.timeline());
    ArrayNode out = F.arrayNode();
    byPartition.forEach((p, byInstant) -> {
      Map<String, FileGroup> groups = new TreeMap<>();
      byInstant.forEach((instant, ids) -> {
        String before = before(instant);
        if (before != null) {
          for (FileGroup g : view.fileGroups(p, before)) {
            if (ids.contains(g.fileId())) {
              groups.put(g.fileId(), g);
            }
          }
        }
      });
      groups.forEach((id, g) ->
        out.add(ViewJson.fileGroup(c.basePath(), new FileGroupId(p, id), g.slices(), timeline))
      );
    });
    return out;
  }

  /** The instant time just before {@code instant} (same width), so a view as of it shows the groups unreplaced. */
  static String before(String instant) {
    BigInteger t = new BigInteger(instant);
    if (t.signum() <= 0) {
      return null;
    }
    String s = t.subtract(BigInteger.ONE).toString();
    return "0".repeat(Math.max(0, instant.length() - s.length())) + s;
  }

  // ---- standalone ----

  /**
   * {@code <basePath> --port N [--view-type MEMORY|SPILLABLE_DISK] [--spillable-mem BYTES] [--spillable-dir
   * DIR]}: serves the JVM's view of that table (and of any other a client names) until killed. The
   * table's view is built before the port is announced, so the first request is answered from memory.
   */
  public static void main(String[] args) throws InterruptedException {
    String basePath = null;
    Integer port = null;
    Map<String, String> options = new HashMap<>();
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (!a.startsWith("--")) {
          if (basePath != null) {
            throw new IllegalArgumentException("one base path only; got " + basePath + " and " + a);
          }
          basePath = a;
          continue;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String value = args[++i];
        switch (a) {
          case "--port" -> port = parsePort(value);
          case "--view-type" -> options.put(ViewStorageConfig.TYPE, value);
          case "--spillable-mem" -> options.put(ViewStorageConfig.SPILLABLE_MEM, value);
          case "--spillable-dir" -> options.put(ViewStorageConfig.SPILLABLE_DIR, value);
          default -> throw new IllegalArgumentException("unknown option " + a);
        }
      }
      if (basePath == null || port == null) {
        throw new IllegalArgumentException(basePath == null ? "no base path given" : "--port is required");
      }
      ViewStorageConfig.of(options); // a bad value is an argument error, before any storage call
    } catch (IllegalArgumentException | HudiException e) {
      System.err.println("hudi-meta timeline server: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    TimelineServer server;
    try {
      Configuration conf = new Configuration();
      Path base = new Path(basePath);
      SyncedView view = TableViews.synced(base.getFileSystem(conf), base, ViewStorageConfig.of(options));
      view.view(view.partitions());
      server = start(conf, port, options);
    } catch (IOException | RuntimeException e) {
      System.err.println("hudi-meta timeline server: " + message(e));
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "hudi-timeline-server-stop"));
    System.out.println("timeline server for " + basePath + " on port " + server.port());
    System.out.flush();
    Thread.currentThread().join(); // the pool's threads are daemons: this one keeps the JVM serving
  }

  private static int parsePort(String value) {
    try {
      int p = Integer.parseInt(value);
      if (p >= 0 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("--port " + value + " is not a port number (0-65535)");
  }
}
