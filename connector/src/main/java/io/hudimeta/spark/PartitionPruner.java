package io.hudimeta.spark;

import io.hudimeta.table.TableConfig;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Partition pruning on filters over partition columns. Only key generators whose partition path
 * holds the column values verbatim (simple, complex) are pruned; a filter it cannot decide keeps
 * the partition, so pruning never drops rows Spark's own filter would keep.
 */
final class PartitionPruner {

  private static final String PARTITION_PATH = TableSnapshot.PARTITION_PATH;

  private PartitionPruner() {}

  static List<String> prune(TableConfig config, StructType schema, List<String> partitions, Filter[] filters) {
    partitions = byMetaColumn(config, partitions, filters);
    List<String> fields = config.partitionFields();
    if (fields.isEmpty() || filters.length == 0 || !valuesInPath(config)) {
      return partitions;
    }
    List<String> kept = new ArrayList<>();
    for (String partition : partitions) {
      Map<String, String> values = values(config, fields, partition);
      if (values == null || matchesAll(filters, values, schema)) {
        kept.add(partition);
      }
    }
    return kept;
  }

  /**
   * The partitions that filters on the {@code _hoodie_partition_path} meta column allow, whatever the key
   * generator: the column holds each record's partition path (a writer's index lookups filter on it).
   */
  private static List<String> byMetaColumn(TableConfig config, List<String> partitions, Filter[] filters) {
    Set<String> allowed = pinned(config, filters);
    if (allowed == null) {
      return partitions;
    }
    List<String> kept = new ArrayList<>();
    for (String p : partitions) {
      if (allowed.contains(p)) {
        kept.add(p);
      }
    }
    return kept;
  }

  /**
   * The partition paths filters on {@code _hoodie_partition_path} pin the query to, or null when they do not:
   * a scan can then plan those partitions without learning every partition of the table first.
   */
  static Set<String> pinned(TableConfig config, Filter[] filters) {
    if (!config.populateMetaFields()) {
      return null;
    }
    Set<String> allowed = null;
    for (Filter f : filters) {
      Set<String> some = metaAllowed(f);
      if (some != null) {
        allowed = allowed == null ? some : intersect(allowed, some);
      }
    }
    return allowed;
  }

  /** Partition paths a filter allows by the meta column; null when it does not decide. */
  private static Set<String> metaAllowed(Filter f) {
    if (f instanceof EqualTo e && e.attribute().equals(PARTITION_PATH) && e.value() != null) {
      return Set.of(String.valueOf(e.value()));
    }
    if (f instanceof In in && in.attribute().equals(PARTITION_PATH)) {
      Set<String> out = new HashSet<>();
      for (Object v : in.values()) {
        if (v != null) {
          out.add(String.valueOf(v));
        }
      }
      return out;
    }
    if (f instanceof And a) {
      Set<String> l = metaAllowed(a.left());
      Set<String> r = metaAllowed(a.right());
      return l == null ? r : r == null ? l : intersect(l, r);
    }
    if (f instanceof Or o) {
      Set<String> l = metaAllowed(o.left());
      Set<String> r = metaAllowed(o.right());
      if (l == null || r == null) {
        return null;
      }
      Set<String> out = new HashSet<>(l);
      out.addAll(r);
      return out;
    }
    return null;
  }

  private static Set<String> intersect(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.retainAll(b);
    return out;
  }

  private static boolean valuesInPath(TableConfig config) {
    String type = String.valueOf(config.keyGeneratorType()).toUpperCase(Locale.ROOT);
    String cls = String.valueOf(config.keyGeneratorClass());
    return (
      type.equals("SIMPLE") ||
      type.equals("COMPLEX") ||
      cls.endsWith(".SimpleKeyGenerator") ||
      cls.endsWith(".ComplexKeyGenerator")
    );
  }

  /** Column values of one partition path; null when the path does not have the expected shape. */
  private static Map<String, String> values(TableConfig config, List<String> fields, String partition) {
    String[] segments = partition.split("/");
    if (segments.length != fields.size()) {
      return null;
    }
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < segments.length; i++) {
      String seg = segments[i];
      if (config.hiveStylePartitioning()) {
        String prefix = fields.get(i) + "=";
        if (!seg.startsWith(prefix)) {
          return null;
        }
        seg = seg.substring(prefix.length());
      }
      if (config.urlEncodePartitioning()) {
        seg = URLDecoder.decode(seg, StandardCharsets.UTF_8);
      }
      out.put(fields.get(i), seg);
    }
    return out;
  }

  private static boolean matchesAll(Filter[] filters, Map<String, String> values, StructType schema) {
    for (Filter f : filters) {
      if (eval(f, values, schema) == Boolean.FALSE) {
        return false;
      }
    }
    return true;
  }

  /** TRUE/FALSE when decidable from the partition values, null when not. */
  private static Boolean eval(Filter f, Map<String, String> values, StructType schema) {
    if (f instanceof And a) {
      Boolean l = eval(a.left(), values, schema);
      Boolean r = eval(a.right(), values, schema);
      return l == Boolean.FALSE || r == Boolean.FALSE ? Boolean.FALSE : l == null || r == null ? null : true;
    }
    if (f instanceof Or o) {
      Boolean l = eval(o.left(), values, schema);
      Boolean r = eval(o.right(), values, schema);
      return l == Boolean.TRUE || r == Boolean.TRUE ? Boolean.TRUE : l == null || r == null ? null : false;
    }
    if (f instanceof Not n) {
      Boolean v = eval(n.child(), values, schema);
      return v == null ? null : !v;
    }
    if (f instanceof EqualTo e) {
      return compare(e.attribute(), e.value(), values, schema, c -> c == 0);
    }
    if (f instanceof EqualNullSafe e) {
      return compare(e.attribute(), e.value(), values, schema, c -> c == 0);
    }
    if (f instanceof GreaterThan g) {
      return compare(g.attribute(), g.value(), values, schema, c -> c > 0);
    }
    if (f instanceof GreaterThanOrEqual g) {
      return compare(g.attribute(), g.value(), values, schema, c -> c >= 0);
    }
    if (f instanceof LessThan l) {
      return compare(l.attribute(), l.value(), values, schema, c -> c < 0);
    }
    if (f instanceof LessThanOrEqual l) {
      return compare(l.attribute(), l.value(), values, schema, c -> c <= 0);
    }
    if (f instanceof In in) {
      boolean undecided = false;
      for (Object v : in.values()) {
        Boolean b = compare(in.attribute(), v, values, schema, c -> c == 0);
        if (b == Boolean.TRUE) {
          return true;
        }
        undecided |= b == null;
      }
      return undecided ? null : false;
    }
    return null;
  }

  /** Compares the partition's value of `attr` with a literal; null when not comparable here. */
  private static Boolean compare(
    String attr,
    Object literal,
    Map<String, String> values,
    StructType schema,
    java.util.function.IntPredicate test
  ) {
    String raw = values.get(attr);
    if (raw == null || literal == null || !List.of(schema.fieldNames()).contains(attr)) {
      return null;
    }
    DataType type = schema.apply(attr).dataType();
    try {
      if (type == DataTypes.StringType) {
        return test.test(Integer.signum(raw.compareTo(literal.toString())));
      }
      if (
        type == DataTypes.IntegerType ||
        type == DataTypes.LongType ||
        type == DataTypes.ShortType ||
        type == DataTypes.ByteType
      ) {
        return test.test(Long.compare(Long.parseLong(raw), ((Number) literal).longValue()));
      }
    } catch (NumberFormatException | ClassCastException e) {
      return null; // e.g. Hive's default partition name: keep it
    }
    return null;
  }
}
