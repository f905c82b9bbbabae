package io.hudimeta.spark.pruning;

import io.hudimeta.table.MetaFields;
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
import java.util.function.IntPredicate;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Partition pruning on filters over partition columns. Only key generators whose partition path
 * holds the column values verbatim (simple, complex) are pruned; a filter it cannot decide keeps
 * the partition, so pruning never drops rows Spark's own filter would keep.
 */
public final class PartitionPruner {

  private static final String PARTITION_PATH = MetaFields.PARTITION_PATH;

  private PartitionPruner() {}

  public static List<String> prune(TableConfig config, StructType schema, List<String> partitions, Filter[] filters) {
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
  public static Set<String> pinned(TableConfig config, Filter[] filters) {
    if (!config.populateMetaFields()) {
      return null;
    }
    Set<String> allowed = null;
    MetaColumn byMeta = new MetaColumn();
    for (Filter f : filters) {
      Set<String> some = byMeta.visit(f);
      if (some != null) {
        allowed = allowed == null ? some : intersect(allowed, some);
      }
    }
    return allowed;
  }

  /** Partition paths a filter allows by the meta column; null when it does not decide. */
  private static final class MetaColumn extends FilterVisitor<Set<String>> {

    @Override
    Set<String> unknown() {
      return null;
    }

    @Override
    Set<String> and(Set<String> l, Set<String> r) {
      return l == null ? r : r == null ? l : intersect(l, r);
    }

    @Override
    Set<String> or(Set<String> l, Set<String> r) {
      if (l == null || r == null) {
        return null;
      }
      Set<String> out = new HashSet<>(l);
      out.addAll(r);
      return out;
    }

    @Override
    Set<String> equalTo(String column, Object value) {
      return column.equals(PARTITION_PATH) && value != null ? Set.of(String.valueOf(value)) : null;
    }

    @Override
    Set<String> in(String column, Object[] values) {
      if (!column.equals(PARTITION_PATH)) {
        return null;
      }
      Set<String> out = new HashSet<>();
      for (Object v : values) {
        if (v != null) {
          out.add(String.valueOf(v));
        }
      }
      return out;
    }
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
    Values judge = new Values(values, schema);
    for (Filter f : filters) {
      if (judge.visit(f) == Boolean.FALSE) {
        return false;
      }
    }
    return true;
  }

  /** A filter over one partition's column values: TRUE/FALSE when they decide it, null when not. */
  private static final class Values extends FilterVisitor<Boolean> {

    private final Map<String, String> values;
    private final StructType schema;

    Values(Map<String, String> values, StructType schema) {
      this.values = values;
      this.schema = schema;
    }

    @Override
    Boolean unknown() {
      return null;
    }

    @Override
    Boolean and(Boolean l, Boolean r) {
      return l == Boolean.FALSE || r == Boolean.FALSE ? Boolean.FALSE : l == null || r == null ? null : true;
    }

    @Override
    Boolean or(Boolean l, Boolean r) {
      return l == Boolean.TRUE || r == Boolean.TRUE ? Boolean.TRUE : l == null || r == null ? null : false;
    }

    @Override
    Boolean not(Boolean v) {
      return v == null ? null : !v;
    }

    @Override
    Boolean equalTo(String column, Object value) {
      return compare(column, value, c -> c == 0);
    }

    @Override
    Boolean equalNullSafe(String column, Object value) {
      return compare(column, value, c -> c == 0);
    }

    @Override
    Boolean greaterThan(String column, Object value) {
      return compare(column, value, c -> c > 0);
    }

    @Override
    Boolean greaterThanOrEqual(String column, Object value) {
      return compare(column, value, c -> c >= 0);
    }

    @Override
    Boolean lessThan(String column, Object value) {
      return compare(column, value, c -> c < 0);
    }

    @Override
    Boolean lessThanOrEqual(String column, Object value) {
      return compare(column, value, c -> c <= 0);
    }

    @Override
    Boolean in(String column, Object[] literals) {
      boolean undecided = false;
      for (Object v : literals) {
        Boolean b = compare(column, v, c -> c == 0);
        if (b == Boolean.TRUE) {
          return true;
        }
        undecided |= b == null;
      }
      return undecided ? null : false;
    }

    /** Compares the partition's value of `attr` with a literal; null when not comparable here. */
    private Boolean compare(String attr, Object literal, IntPredicate test) {
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
}
