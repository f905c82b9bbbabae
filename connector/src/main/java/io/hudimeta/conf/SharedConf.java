package io.hudimeta.conf;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Hadoop configurations broadcast once per content: a scan or a record-index lookup whose configuration
 * holds the same properties as one broadcast before (by the same Spark application) reuses that broadcast. A
 * configuration is sent as all its properties, defaults included (some hundreds), and broadcasting it was a
 * fifth of planning a point query; reading its properties to compare them costs a fraction of that. A few are
 * kept, the least recently used dropped (Spark cleans a broadcast once nothing holds it).
 */
public final class SharedConf {

  private static final int KEPT = 8;
  private static final Map<Key, Broadcast<SerializableConfiguration>> KEPT_BROADCASTS = new LinkedHashMap<>(
    16,
    0.75f,
    true
  ) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Broadcast<SerializableConfiguration>> eldest) {
      return size() > KEPT;
    }
  };

  /** The application (a new Spark context broadcasts afresh) and the properties. */
  private record Key(String application, long started, Map<String, String> properties) {}

  private SharedConf() {}

  /** {@code conf} broadcast, or the broadcast of an equal configuration; a copy is sent, {@code conf} stays the caller's. */
  public static Broadcast<SerializableConfiguration> of(SparkContext sc, Configuration conf) {
    Map<String, String> properties = new HashMap<>();
    conf.forEach(e -> properties.put(e.getKey(), e.getValue()));
    Key key = new Key(sc.applicationId(), sc.startTime(), properties);
    synchronized (KEPT_BROADCASTS) {
      return KEPT_BROADCASTS.computeIfAbsent(key, k ->
        sc.broadcast(
          new SerializableConfiguration(new Configuration(conf)),
          scala.reflect.ClassTag$.MODULE$.apply(SerializableConfiguration.class)
        )
      );
    }
  }
}
