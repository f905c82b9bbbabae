package io.hudimeta.spark.pruning;

import io.hudimeta.index.IndexDefinitions;
import io.hudimeta.index.RecordIndex;
import io.hudimeta.index.RepeatedKeys;
import io.hudimeta.index.SecondaryIndex;
import io.hudimeta.index.SecondaryValues;
import io.hudimeta.metadata.MetadataDamage;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.MetaFields;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Record-level index pruning (Apache Hudi's RecordLevelIndexSupport and SecondaryIndexSupport): when the
 * pushed filters pin the record keys of the rows they keep, only the file groups the record index places
 * those keys in are read; keys it does not hold read nothing. A filter pins keys when it compares
 * ({@code =}, {@code <=>} with a value, {@code IN}) the record key ({@code _hoodie_record_key}, or the
 * single record key field of a key generator that writes the field's value as the key) or a column that a
 * completed secondary index covers, which turns the values into the record keys of the rows holding them.
 * AND intersects what its sides pin and OR unites it (when both sides pin keys); so do the top-level
 * filters, being ANDed. Like column_stats pruning it needs data skipping, the metadata table (in sync) and
 * the latest snapshot, and every filter is still applied after the scan. When it applies it comes first, as
 * in Hudi's file index (the first index that answers decides): only the partitions holding the keys are
 * listed, and neither partition_stats nor column_stats is read. It is off on a table whose commits may have
 * written a key twice ({@link RepeatedKeys}: the index names one of its places), where Apache Hudi 1.2 prunes
 * and drops rows; the column statistics still prune then.
 */
public final class RecordIndexPruning {

  private static final Logger LOG = LoggerFactory.getLogger(RecordIndexPruning.class);
  private static final Set<String> PLAIN_KEY_GENERATORS = Set.of("SIMPLE", "NON_PARTITION", "TIMESTAMP", "CUSTOM");

  private final MetadataTable mdt;
  private final KeyPin pin;
  /** The secondary-index lookups {@link #pin} needs: every value of each index, by partition. */
  private final Map<String, KeyPin.Values> lookups;
  /** The keys looked up in record_index, once pruned. */
  private Set<String> keys;
  /** The file groups holding them, once looked up. */
  private Set<FileGroupId> groups;
  private String outcome;

  private RecordIndexPruning(MetadataTable mdt, KeyPin pin, String off) {
    this.mdt = mdt;
    this.pin = pin;
    this.lookups = pin == null ? Map.of() : KeyPin.lookups(pin);
    this.outcome = off;
  }

  /**
   * The pruning a query may do.
   *
   * @param mdt            the metadata table the plan uses for data skipping (in sync), or null
   * @param fs             the table's file system (for its index definitions)
   * @param latestSnapshot whether the query is a snapshot of the latest instant
   */
  public static RecordIndexPruning of(
    ReadOptions options,
    MetadataTable mdt,
    FileSystem fs,
    Timeline timeline,
    StructType schema,
    Filter[] filters,
    boolean latestSnapshot
  ) {
    TableConfig config = timeline.config();
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
    KeyPin.Columns columns = new KeyPin.Columns(keyColumns(config, schema), indexedColumns(fs, mdt, schema));
    KeyPin pin = KeyPin.of(filters, columns);
    if (pin == null) {
      return off("off(no-key-filter)");
    }
    // read only for a query the index could answer
    String repeating = options.recordIndexTrusted ? null : RepeatedKeys.firstRepeating(timeline);
    if (repeating != null) {
      return off("off(keys-may-repeat: " + repeating + "; " + ReadOptions.RECORD_INDEX_TRUSTED + "=true prunes)");
    }
    String over = overCap(pin, options.recordIndexMaxKeys);
    return over != null
      ? off("off(" + over + " > " + ReadOptions.RECORD_INDEX_MAX_KEYS + "=" + options.recordIndexMaxKeys + ")")
      : new RecordIndexPruning(mdt, pin, null);
  }

  private static RecordIndexPruning off(String why) {
    return new RecordIndexPruning(null, null, why);
  }

  /** "N keys" or "N values" when the filters pin more keys, or more secondary-index values, than {@code cap}. */
  private static String overCap(KeyPin pin, int cap) {
    int keys = KeyPin.keys(pin).size();
    if (keys > cap) {
      return plural(keys, "key");
    }
    int values = KeyPin.lookups(pin)
      .values()
      .stream()
      .mapToInt(v -> v.texts().size())
      .sum();
    return values > cap ? plural(values, "value") : null;
  }

  /** Keys looked up in record_index (0 when off). */
  public long keyCount() {
    return keys == null ? 0 : keys.size();
  }

  /**
   * e.g. "record_index: 2 keys -> 1 file group, 14 of 15 file slices pruned", with the values the keys come
   * from when a secondary index gave them ("3 keys (secondary_index_rider_idx: 2 values) -> ..."), or
   * "record_index: off(why)".
   */
  public String describe() {
    return "record_index: " + (outcome == null ? "not planned" : outcome);
  }

  /**
   * The partitions the index places the keys in, or null when this pruning is off or an index cannot be
   * read: then every partition may hold them.
   */
  public Set<String> partitions() {
    if (lookedUp() == null) {
      return null;
    }
    Set<String> out = new TreeSet<>();
    groups.forEach(g -> out.add(g.partitionPath()));
    return out;
  }

  /** The file groups holding the pinned keys, looked up on the first call; null when off or unreadable. */
  private Set<FileGroupId> lookedUp() {
    if (pin == null || outcome != null || groups != null) {
      return groups;
    }
    try {
      keys = KeyPin.resolve(pin, secondaryKeys());
      groups = fileGroups(keys);
    } catch (RuntimeException e) {
      MetadataDamage damage = MetadataDamage.in(e);
      if (damage == null) {
        LOG.warn("Not pruning by record_index of {}: an index cannot be read", mdt.dataBasePath(), e);
        outcome = "off(unreadable)";
      } else {
        damage.report("Not pruning by " + damage.partition() + " of " + mdt.dataBasePath() + " in this query");
        outcome = "off(damaged-" + damage.partition() + ")";
      }
      keys = null;
      groups = null;
    }
    return groups;
  }

  /** The splits of the file groups the index places the keys in, in their order. */
  public <S extends PrunableSlice> List<S> prune(List<S> splits) {
    if (lookedUp() == null) {
      return splits;
    }
    List<S> kept = new ArrayList<>();
    for (S s : splits) {
      if (groups.contains(new FileGroupId(s.partitionPath(), s.fileId()))) {
        kept.add(s);
      }
    }
    outcome =
      plural(keys.size(), "key") +
      valuesLookedUp() +
      " -> " +
      plural(groups.size(), "file group") +
      ", " +
      (splits.size() - kept.size()) +
      " of " +
      splits.size() +
      " file slices pruned";
    return kept;
  }

  /** What each secondary index holds for the pinned values: partition -> value text -> record keys. */
  private Map<String, Map<String, Set<String>>> secondaryKeys() {
    Map<String, Map<String, Set<String>>> out = new HashMap<>();
    lookups.forEach((partition, v) -> out.put(partition, SecondaryIndex.of(mdt, v.index()).recordKeys(v.texts())));
    return out;
  }

  /** The file groups the record index places the keys in (no lookup for no key). */
  private Set<FileGroupId> fileGroups(Set<String> keys) {
    Set<FileGroupId> groups = new HashSet<>();
    if (keys.isEmpty()) {
      return groups;
    }
    try (RecordIndex index = RecordIndex.of(mdt)) {
      index
        .lookup(keys)
        .values()
        .forEach(l -> groups.add(l.fileGroupId()));
    }
    return groups;
  }

  /** " (secondary_index_a: 2 values, ...)" for the secondary indexes looked up, else "". */
  private String valuesLookedUp() {
    if (lookups.isEmpty()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    lookups.forEach((partition, v) -> parts.add(partition + ": " + plural(v.texts().size(), "value")));
    return " (" + String.join(", ", parts) + ")";
  }

  private static String plural(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  // ---- which columns pin the key ----

  /**
   * Columns whose value is the record key, with their types: {@code _hoodie_record_key} when written, and
   * the single record key field of a key generator that writes its value as the key (string or integral).
   */
  static Map<String, DataType> keyColumns(TableConfig config, StructType schema) {
    Map<String, DataType> out = new HashMap<>();
    if (config.populateMetaFields()) {
      out.put(MetaFields.RECORD_KEY, DataTypes.StringType);
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

  /**
   * Columns a completed secondary index covers and whose values can be turned into its key text
   * ({@link SecondaryValues}), with that index; none when the table's index definitions cannot be read
   * (record-key filters still prune).
   */
  static Map<String, KeyPin.Indexed> indexedColumns(FileSystem fs, MetadataTable mdt, StructType schema) {
    if (
      mdt
        .availablePartitions()
        .stream()
        .noneMatch(p -> p.startsWith(IndexDefinitions.SECONDARY_PREFIX))
    ) {
      return Map.of();
    }
    IndexDefinitions definitions;
    try {
      definitions = IndexDefinitions.load(fs, mdt.dataBasePath(), mdt.dataConfig());
    } catch (RuntimeException e) {
      LOG.warn("Not pruning by the secondary indexes of {}: their definitions cannot be read", mdt.dataBasePath(), e);
      return Map.of();
    }
    Map<String, KeyPin.Indexed> out = new HashMap<>();
    for (IndexDefinitions.Secondary d : definitions.secondary().values()) {
      DataType type = schema.getFieldIndex(d.column()).isDefined() ? schema.apply(d.column()).dataType() : null;
      if (SecondaryIndex.available(mdt, d) && type != null && SecondaryValues.isIndexable(type)) {
        out.putIfAbsent(d.column(), new KeyPin.Indexed(d, type));
      }
    }
    return out;
  }

  /**
   * Types whose values this reader can turn into their record key: those whose key text a secondary index
   * knows ({@link SecondaryValues}: bytewise strings, integers) but booleans and dates, which a key generator
   * writing the field's value would render otherwise.
   */
  private static boolean isKeyType(DataType t) {
    return SecondaryValues.isIndexable(t) && !(t instanceof BooleanType) && !(t instanceof DateType);
  }
}
