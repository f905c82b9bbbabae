package io.hudimeta.spark;

import io.hudimeta.index.RecordIndex;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.TableConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Record-level index pruning (Apache Hudi's RecordLevelIndexSupport): when the pushed filters pin the
 * record key to a few values ({@code =} or {@code IN} on {@code _hoodie_record_key}, or on the single
 * record key field of a key generator that writes the field's value as the key, also inside AND/OR), only
 * the file groups the record index places those keys in are read; keys it does not hold read nothing.
 * Like column_stats pruning it needs data skipping, the metadata table (in sync) and the latest snapshot,
 * and every filter is still applied after the scan.
 */
final class RecordIndexPruning {

  private static final Logger LOG = LoggerFactory.getLogger(RecordIndexPruning.class);
  private static final Set<String> PLAIN_KEY_GENERATORS = Set.of("SIMPLE", "NON_PARTITION", "TIMESTAMP", "CUSTOM");

  private final MetadataTable mdt;
  private final Set<String> keys;
  private String outcome;

  private RecordIndexPruning(MetadataTable mdt, Set<String> keys, String off) {
    this.mdt = mdt;
    this.keys = keys;
    this.outcome = off;
  }

  /**
   * The pruning a query may do.
   *
   * @param mdt            the metadata table the plan uses for data skipping (in sync), or null
   * @param latestSnapshot whether the query is a snapshot of the latest instant
   */
  static RecordIndexPruning of(
    ReadOptions options,
    MetadataTable mdt,
    TableConfig config,
    StructType schema,
    Filter[] filters,
    boolean latestSnapshot
  ) {
    if (!options.dataSkipping) {
      return off("off(" + ReadOptions.DATA_SKIPPING + "=false)");
    }
    if (mdt == null) {
      return off("off(storage-listing)");
    }
    if (!RecordIndex.available(mdt)) {
      return off("off(no-record_index)");
    }
    if (!latestSnapshot) {
      return off("off(not-latest-snapshot)");
    }
    Set<String> keys = pinnedKeys(filters, keyColumns(config, schema));
    if (keys == null) {
      return off("off(no-key-filter)");
    }
    if (keys.size() > options.recordIndexMaxKeys) {
      return off(
        "off(" + keys.size() + " keys > " + ReadOptions.RECORD_INDEX_MAX_KEYS + "=" + options.recordIndexMaxKeys + ")"
      );
    }
    return new RecordIndexPruning(mdt, keys, null);
  }

  private static RecordIndexPruning off(String why) {
    return new RecordIndexPruning(null, null, why);
  }

  /** Keys looked up (0 when off). */
  long keyCount() {
    return keys == null ? 0 : keys.size();
  }

  /** e.g. "record_index: 2 keys -> 1 file group, 14 of 15 file slices pruned" or "record_index: off(why)". */
  String describe() {
    return "record_index: " + (outcome == null ? "not planned" : outcome);
  }

  /** The splits of the file groups the index places the keys in, in their order. */
  List<SliceSplit> prune(List<SliceSplit> splits) {
    if (keys == null) {
      return splits;
    }
    Set<FileGroupId> groups = new HashSet<>();
    try (RecordIndex index = RecordIndex.of(mdt)) {
      index
        .lookup(keys)
        .values()
        .forEach(l -> groups.add(l.fileGroupId()));
    } catch (RuntimeException e) {
      LOG.warn("Not pruning by record_index of {}: it cannot be read", mdt.dataBasePath(), e);
      outcome = "off(unreadable)";
      return splits;
    }
    List<SliceSplit> kept = new ArrayList<>();
    for (SliceSplit s : splits) {
      if (groups.contains(new FileGroupId(s.partitionPath, s.fileId))) {
        kept.add(s);
      }
    }
    outcome =
      plural(keys.size(), "key") +
      " -> " +
      plural(groups.size(), "file group") +
      ", " +
      (splits.size() - kept.size()) +
      " of " +
      splits.size() +
      " file slices pruned";
    return kept;
  }

  private static String plural(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  // ---- which filters pin the key ----

  /**
   * Columns whose value is the record key, with their types: {@code _hoodie_record_key} when written, and
   * the single record key field of a key generator that writes its value as the key (string or integral).
   */
  static Map<String, DataType> keyColumns(TableConfig config, StructType schema) {
    Map<String, DataType> out = new HashMap<>();
    if (config.populateMetaFields()) {
      out.put(TableSnapshot.RECORD_KEY, DataTypes.StringType);
    }
    List<String> fields = config.recordKeyFields();
    String keygen = String.valueOf(config.keyGeneratorType()).toUpperCase(Locale.ROOT).replace("_AVRO", "");
    if (
      fields.size() == 1 && PLAIN_KEY_GENERATORS.contains(keygen) && schema.getFieldIndex(fields.get(0)).isDefined()
    ) {
      DataType type = schema.apply(fields.get(0)).dataType();
      if (isKeyType(type)) {
        out.put(fields.get(0), type);
      }
    }
    return out;
  }

  /** The keys every row passing all filters must have (sorted), or null when no filter pins them. */
  static Set<String> pinnedKeys(Filter[] filters, Map<String, DataType> keyColumns) {
    Set<String> out = null;
    for (Filter f : filters) {
      out = intersect(out, pinned(f, keyColumns));
    }
    return out;
  }

  /** Keys a row must have for {@code f} to be true; null when {@code f} does not pin the key. */
  private static Set<String> pinned(Filter f, Map<String, DataType> keyColumns) {
    if (f instanceof And a) {
      return intersect(pinned(a.left(), keyColumns), pinned(a.right(), keyColumns));
    }
    if (f instanceof Or o) {
      Set<String> l = pinned(o.left(), keyColumns);
      Set<String> r = pinned(o.right(), keyColumns);
      if (l == null || r == null) {
        return null;
      }
      l.addAll(r);
      return l;
    }
    if (f instanceof EqualTo e) {
      return values(keyColumns.get(e.attribute()), new Object[] { e.value() });
    }
    if (f instanceof EqualNullSafe e && e.value() != null) {
      return values(keyColumns.get(e.attribute()), new Object[] { e.value() });
    }
    if (f instanceof In in) {
      return values(keyColumns.get(in.attribute()), in.values());
    }
    return null;
  }

  /** The keys of literals compared with a key column (a null literal matches no row); null if any is not a key. */
  private static Set<String> values(DataType column, Object[] literals) {
    if (column == null) {
      return null;
    }
    Set<String> out = new TreeSet<>();
    for (Object v : literals) {
      if (v != null) {
        String key = keyText(column, v);
        if (key == null) {
          return null;
        }
        out.add(key);
      }
    }
    return out;
  }

  /**
   * Types whose values this reader can turn into their record key: strings compared bytewise (under another
   * collation = matches values whose bytes differ from the literal) and integers.
   */
  private static boolean isKeyType(DataType t) {
    return (
      (t instanceof StringType st && st.supportsBinaryEquality()) ||
      t instanceof ByteType ||
      t instanceof ShortType ||
      t instanceof IntegerType ||
      t instanceof LongType
    );
  }

  /** The record key a literal compared with a key column is written as (its text), or null when unknown. */
  private static String keyText(DataType column, Object value) {
    if (column instanceof StringType) {
      return value instanceof String || value instanceof UTF8String ? value.toString() : null;
    }
    boolean integral =
      value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long;
    return integral ? value.toString() : null;
  }

  private static Set<String> intersect(Set<String> a, Set<String> b) {
    if (a == null) {
      return b;
    }
    if (b != null) {
      a.retainAll(b);
    }
    return a;
  }
}
