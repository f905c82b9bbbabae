package io.hudimeta.spark.bridge;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Where pyhudi registers its write client: one per JVM, since a driver has one Python process. */
public final class WriteClients {

  private static volatile WriteCallback client;
  // what the latest write of this thread committed: SQL DML reports it (io.hudimeta.spark.sql.RowCounts)
  private static final ThreadLocal<String> LAST_COMMIT = new ThreadLocal<>();

  private WriteClients() {}

  public static void register(WriteCallback callback) {
    if (callback == null) {
      throw new IllegalArgumentException("hudi-meta: cannot register a null write client");
    }
    client = callback;
  }

  /** Forgets the registered client (its Python process is going away, or a test wants none). */
  public static void unregister() {
    client = null;
  }

  public static boolean isRegistered() {
    return client != null;
  }

  /**
   * The registered client, whose failures are raised as pyhudi's message alone ({@link CallbackErrors});
   * never null, so a write without pyhudi fails loudly.
   */
  public static WriteCallback get() {
    return new Reported(registered());
  }

  private static WriteCallback registered() {
    WriteCallback c = client;
    if (c == null) {
      throw new IllegalStateException(
        "hudi-meta: writing needs the pyhudi write client; `import pyhudi` in the " +
          "driver (pip install pyhudi) before writing, or call pyhudi.register(spark) for a SparkSession " +
          "created after that import"
      );
    }
    return c;
  }

  /** Hands {@code df} to the client: the path on its own, the other options as they were given. */
  public static void write(Dataset<Row> df, Map<String, String> options, String mode) {
    WriteCallback c = get();
    LAST_COMMIT.set(c.write(df, path(options), withoutPath(options), mode));
  }

  /**
   * What the latest write of the calling thread committed, as {@link WriteCallback#write} tells it, and
   * forgets it; null when this thread wrote nothing since.
   */
  public static String takeLastCommit() {
    String last = LAST_COMMIT.get();
    LAST_COMMIT.remove();
    return last;
  }

  /** A client whose failures reach the Python caller as one line. */
  private record Reported(WriteCallback client) implements WriteCallback {
    @Override
    public String write(Dataset<Row> df, String path, Map<String, String> options, String mode) {
      return CallbackErrors.call(() -> client.write(df, path, options, mode));
    }

    @Override
    public void writeBatch(Dataset<Row> df, String path, Map<String, String> options, long batchId, String writer) {
      CallbackErrors.run(() -> client.writeBatch(df, path, options, batchId, writer));
    }

    @Override
    public void createTable(String path, Map<String, String> options, String schemaJson) {
      CallbackErrors.run(() -> client.createTable(path, options, schemaJson));
    }

    @Override
    public String procedure(String name, String path, Map<String, String> args) {
      return CallbackErrors.call(() -> client.procedure(name, path, args));
    }

    @Override
    public void createIndex(String path, String partition, String column, Map<String, String> options) {
      CallbackErrors.run(() -> client.createIndex(path, partition, column, options));
    }

    @Override
    public void dropIndex(String path, String partition) {
      CallbackErrors.run(() -> client.dropIndex(path, partition));
    }
  }

  /** The table path among Spark's options ("path", whatever its case). */
  public static String path(Map<String, String> options) {
    for (Map.Entry<String, String> e : options.entrySet()) {
      if (e.getKey().equalsIgnoreCase("path") && e.getValue() != null && !e.getValue().isEmpty()) {
        return e.getValue();
      }
    }
    throw new IllegalArgumentException(
      "hudi-meta: no table path given; use .save(\"/path/to/table\") or " + "option(\"path\", ...)"
    );
  }

  public static Map<String, String> withoutPath(Map<String, String> options) {
    Map<String, String> out = new LinkedHashMap<>();
    options.forEach((k, v) -> {
      if (!k.equalsIgnoreCase("path")) {
        out.put(k, v);
      }
    });
    return out;
  }
}
