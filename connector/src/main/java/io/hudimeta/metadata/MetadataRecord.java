package io.hudimeta.metadata;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * One metadata-table record after merging (docs/format.md §7): the HFile row as key, the {@code type}
 * code and the decoded payload. Merging follows Hudi's {@code HoodieMetadataPayload}:
 * <ul>
 *   <li>a deleted newer record (delete-block entry, or a payload flagged {@code isDeleted}) replaces the older
 *       one, and a record that follows a deleted one starts afresh;</li>
 *   <li>types 1/2 ({@code files}): the file maps merge per file name: a deletion drops the file (a deletion of
 *       an unknown file is kept as a tombstone), otherwise the larger size wins;</li>
 *   <li>types 3/6 (column/partition stats): smaller min, larger max, summed counts;</li>
 *   <li>other types: the newer record wins.</li>
 * </ul>
 */
public final class MetadataRecord {

  public static final int TYPE_ALL_PARTITIONS = 1;
  public static final int TYPE_FILES = 2;
  public static final int TYPE_COLUMN_STATS = 3;
  public static final int TYPE_BLOOM_FILTER = 4;
  public static final int TYPE_RECORD_INDEX = 5;
  public static final int TYPE_PARTITION_STATS = 6;
  public static final int TYPE_SECONDARY_INDEX = 7;

  /** One entry of a {@code filesystemMetadata} map. */
  public record FileInfo(long size, boolean deleted) {}

  private final String key;
  private final int type;
  private final Map<String, FileInfo> files;
  private final ColumnStat columnStat;
  private final GenericRecord payload;
  private final boolean deleted;

  private MetadataRecord(
    String key,
    int type,
    Map<String, FileInfo> files,
    ColumnStat columnStat,
    GenericRecord payload,
    boolean deleted
  ) {
    this.key = key;
    this.type = type;
    this.files = files;
    this.columnStat = columnStat;
    this.payload = payload;
    this.deleted = deleted;
  }

  /** A files-partition record (type 1 or 2) built in memory, e.g. to exercise the merge rules. */
  static MetadataRecord ofFiles(String key, int type, Map<String, FileInfo> files) {
    return new MetadataRecord(key, type, Collections.unmodifiableMap(new TreeMap<>(files)), null, null, false);
  }

  /** A delete-block entry for {@code key}. */
  static MetadataRecord deletion(String key) {
    return new MetadataRecord(key, 0, null, null, null, true);
  }

  /** Decodes a {@code HoodieMetadataRecord} stored under HFile row {@code key}. */
  static MetadataRecord decode(String key, GenericRecord record) {
    int type = ((Number) record.get("type")).intValue();
    switch (type) {
      case TYPE_ALL_PARTITIONS:
      case TYPE_FILES:
        return new MetadataRecord(key, type, fileMap(record.get("filesystemMetadata")), null, record, false);
      case TYPE_COLUMN_STATS:
      case TYPE_PARTITION_STATS: {
        GenericRecord stats = (GenericRecord) record.get("ColumnStatsMetadata");
        if (stats == null) {
          throw new IllegalArgumentException(
            "metadata record " + key + " of type " + type + " has no ColumnStatsMetadata"
          );
        }
        return new MetadataRecord(key, type, null, columnStat(stats), record, bool(stats, "isDeleted"));
      }
      case TYPE_BLOOM_FILTER:
        return new MetadataRecord(key, type, null, null, record, nestedDeleted(record, "BloomFilterMetadata"));
      case TYPE_SECONDARY_INDEX:
        return new MetadataRecord(key, type, null, null, record, nestedDeleted(record, "SecondaryIndexMetadata"));
      default:
        return new MetadataRecord(key, type, null, null, record, false);
    }
  }

  /** The record that results from applying {@code newer} on top of {@code older} (same key). */
  static MetadataRecord combine(MetadataRecord older, MetadataRecord newer) {
    if (older == null || older.deleted || newer.deleted || older.type != newer.type) {
      return newer;
    }
    switch (newer.type) {
      case TYPE_ALL_PARTITIONS:
      case TYPE_FILES: {
        Map<String, FileInfo> merged = new TreeMap<>(older.files);
        newer.files.forEach((name, info) ->
          merged.merge(name, info, (o, n) -> n.deleted() ? null : new FileInfo(Math.max(o.size(), n.size()), false))
        );
        return new MetadataRecord(
          newer.key,
          newer.type,
          Collections.unmodifiableMap(merged),
          null,
          newer.payload,
          false
        );
      }
      case TYPE_COLUMN_STATS:
      case TYPE_PARTITION_STATS:
        return new MetadataRecord(
          newer.key,
          newer.type,
          null,
          ColumnStat.merge(older.columnStat, newer.columnStat),
          newer.payload,
          false
        );
      default:
        return newer;
    }
  }

  public String key() {
    return key;
  }

  /** Type code (§7.2); 0 for a delete-block entry. */
  public int type() {
    return type;
  }

  /** True for a delete-block entry or a payload flagged deleted: the key reads as absent. */
  public boolean isDeleted() {
    return deleted;
  }

  /** Types 1/2: the merged map including deletion tombstones; null for other types. */
  public Map<String, FileInfo> fileInfos() {
    return files;
  }

  /** Types 1/2: names of the files present (tombstones left out) with their sizes, sorted by name. */
  public Map<String, Long> liveFiles() {
    Map<String, Long> live = new TreeMap<>();
    if (files != null) {
      files.forEach((name, info) -> {
        if (!info.deleted()) {
          live.put(name, info.size());
        }
      });
    }
    return live;
  }

  /** Types 3/6: the (merged) statistics; null for other types. */
  public ColumnStat columnStat() {
    return columnStat;
  }

  /** The newest decoded {@code HoodieMetadataRecord} (writer schema of its file), null for deletions. */
  public GenericRecord payload() {
    return payload;
  }

  @Override
  public String toString() {
    return "MetadataRecord[" + key + ", type " + type + (deleted ? ", deleted" : "") + "]";
  }

  // ---- decoding helpers ----

  private static Map<String, FileInfo> fileMap(Object value) {
    Map<String, FileInfo> out = new HashMap<>(); // liveFiles() sorts
    if (value instanceof Map<?, ?> map) {
      map.forEach((name, info) -> {
        GenericRecord r = (GenericRecord) info;
        Object size = r.get("size");
        out.put(name.toString(), new FileInfo(size == null ? 0L : ((Number) size).longValue(), bool(r, "isDeleted")));
      });
    }
    return Collections.unmodifiableMap(out);
  }

  private static boolean nestedDeleted(GenericRecord record, String field) {
    Object nested = record.get(field);
    return nested instanceof GenericRecord r && bool(r, "isDeleted");
  }

  private static boolean bool(GenericRecord r, String field) {
    if (r.getSchema().getField(field) == null) {
      return false;
    }
    Object v = r.get(field);
    return v instanceof Boolean b && b;
  }

  private static Long longOrNull(GenericRecord r, String field) {
    if (r.getSchema().getField(field) == null) {
      return null;
    }
    Object v = r.get(field);
    return v == null ? null : ((Number) v).longValue();
  }

  private static String stringOrNull(GenericRecord r, String field) {
    if (r.getSchema().getField(field) == null) {
      return null;
    }
    Object v = r.get(field);
    return v == null ? null : v.toString();
  }

  static ColumnStat columnStat(GenericRecord stats) {
    Integer valueType = null;
    String valueTypeInfo = null;
    if (stats.getSchema().getField("valueType") != null && stats.get("valueType") instanceof GenericRecord vt) {
      Object ordinal = vt.get("typeOrdinal");
      valueType = ordinal == null ? null : ((Number) ordinal).intValue();
      valueTypeInfo = stringOrNull(vt, "additionalInfo");
    }
    Object min = interpret(unwrap(stats.get("minValue")), valueType, valueTypeInfo);
    Object max = interpret(unwrap(stats.get("maxValue")), valueType, valueTypeInfo);
    return new ColumnStat(
      stringOrNull(stats, "fileName"),
      stringOrNull(stats, "columnName"),
      min,
      max,
      longOrNull(stats, "nullCount"),
      longOrNull(stats, "valueCount"),
      longOrNull(stats, "totalSize"),
      longOrNull(stats, "totalUncompressedSize"),
      bool(stats, "isTightBound"),
      valueType,
      valueTypeInfo
    );
  }

  /** The plain value inside one of Hudi's wrapper records (§7.3/§7.4). */
  static Object unwrap(Object wrapped) {
    if (!(wrapped instanceof GenericRecord wrapper)) {
      return plain(wrapped);
    }
    Schema schema = wrapper.getSchema();
    if (schema.getField("value") == null) {
      if (schema.getField("wrappedValues") != null) {
        // v9 ArrayWrapper
        Object values = wrapper.get("wrappedValues");
        if (values == null) {
          return null;
        }
        List<Object> out = new ArrayList<>();
        for (Object v : (List<?>) values) {
          out.add(unwrap(v));
        }
        return out;
      }
      throw new IllegalArgumentException("not a Hudi value wrapper: " + schema.getFullName());
    }
    Object value = wrapper.get("value");
    if (value == null) {
      return null;
    }
    switch (schema.getName()) {
      case "DateWrapper":
      case "LocalDateWrapper":
        return LocalDate.ofEpochDay(((Number) value).longValue());
      case "DecimalWrapper": {
        if (value instanceof BigDecimal d) {
          return d;
        }
        LogicalType logical = schema.getField("value").schema().getLogicalType();
        int scale = logical instanceof LogicalTypes.Decimal d ? d.getScale() : 15;
        return new BigDecimal(new BigInteger(bytes(value)), scale);
      }
      case "TimestampMicrosWrapper":
        return Instant.EPOCH.plus(((Number) value).longValue(), ChronoUnit.MICROS);
      default:
        return plain(value);
    }
  }

  private static Object plain(Object value) {
    if (value instanceof CharSequence s) {
      return s.toString();
    }
    if (value instanceof ByteBuffer b) {
      return bytes(b);
    }
    return value;
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[] b) {
      return b;
    }
    ByteBuffer buffer = ((ByteBuffer) value).duplicate();
    byte[] out = new byte[buffer.remaining()];
    buffer.get(out);
    return out;
  }

  /** Applies a v9 valueType to a primitive value; values of an unexpected class pass unchanged. */
  static Object interpret(Object value, Integer valueType, String info) {
    if (value == null || valueType == null) {
      return value;
    }
    switch (valueType) {
      case 10: // DECIMAL
        if (value instanceof byte[] b) {
          Integer scale = decimalScale(info);
          return scale == null ? value : new BigDecimal(new BigInteger(b), scale);
        }
        return value;
      case 12: // DATE
        return value instanceof Integer days ? LocalDate.ofEpochDay(days) : value;
      case 13: // TIME_MILLIS
        return value instanceof Integer ms ? LocalTime.ofNanoOfDay(ms * 1_000_000L) : value;
      case 14: // TIME_MICROS
        return value instanceof Long us ? LocalTime.ofNanoOfDay(us * 1_000L) : value;
      case 15: // TIMESTAMP_MILLIS
        return value instanceof Long ms ? Instant.ofEpochMilli(ms) : value;
      case 16: // TIMESTAMP_MICROS
        return value instanceof Long us ? Instant.EPOCH.plus(us, ChronoUnit.MICROS) : value;
      case 17: // TIMESTAMP_NANOS
        return value instanceof Long ns ? Instant.EPOCH.plusNanos(ns) : value;
      case 18: // LOCAL_TIMESTAMP_MILLIS
        return value instanceof Long ms ? LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneOffset.UTC) : value;
      case 19: // LOCAL_TIMESTAMP_MICROS
        return value instanceof Long us
          ? LocalDateTime.ofInstant(Instant.EPOCH.plus(us, ChronoUnit.MICROS), ZoneOffset.UTC)
          : value;
      case 20: // LOCAL_TIMESTAMP_NANOS
        return value instanceof Long ns ? LocalDateTime.ofInstant(Instant.EPOCH.plusNanos(ns), ZoneOffset.UTC) : value;
      default:
        return value;
    }
  }

  /** Scale from "precision,scale"; null when absent (the unscaled bytes are then returned as they are). */
  private static Integer decimalScale(String info) {
    int comma = info == null ? -1 : info.indexOf(',');
    if (comma < 0) {
      return null;
    }
    try {
      return Integer.parseInt(info.substring(comma + 1).trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
