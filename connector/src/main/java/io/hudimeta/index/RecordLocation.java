package io.hudimeta.index;

import io.hudimeta.metadata.MetadataKeys;
import io.hudimeta.metadata.MetadataRecord;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.HudiTableException;
import java.io.Serializable;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Where the record index says a record lives (a {@code HoodieRecordIndexInfo}, docs/format.md §7.3, §7.7).
 *
 * @param partitionPath     data partition path, "" when non-partitioned
 * @param fileId            file id of the file group
 * @param instantTimeMillis epoch millis of the instant that wrote the record there; null when not recorded
 */
public record RecordLocation(String partitionPath, String fileId, Long instantTimeMillis) implements Serializable {
  /** fileIdEncoding 0: the file id is {@code UUID(high, low) + "-" + fileIndex}. */
  static final int UUID_ENCODING = 0;
  /** fileIdEncoding 1: the file id is the {@code fileId} string as written. */
  static final int RAW_ENCODING = 1;
  /** The field of a {@code HoodieMetadataRecord} that holds a record_index entry. */
  static final String PAYLOAD_FIELD = "recordIndexMetadata";

  public FileGroupId fileGroupId() {
    return new FileGroupId(partitionPath, fileId);
  }

  /** The location a merged record_index record (type 5) holds. */
  public static RecordLocation decode(MetadataRecord record) {
    GenericRecord payload = record.type() == MetadataRecord.TYPE_RECORD_INDEX ? record.payload() : null;
    Info info = Info.of(record.key(), payload);
    return new RecordLocation(MetadataKeys.partitionPath(info.partitionName()), info.fileId(), info.instantTime());
  }

  /** A file id of fileIdEncoding 0, as its parts. */
  record UuidFileId(long high, long low, int index) {
    String text() {
      return new UUID(high, low) + "-" + index;
    }
  }

  /**
   * A record_index payload's {@code HoodieRecordIndexInfo}, its fields read by position and checked as they
   * are read; {@code key} (any object: its text is taken only for an error) names the entry in errors.
   */
  record Info(Object key, GenericRecord r, Fields f) {
    static Info of(Object key, GenericRecord payload) {
      Object info = payload == null ? null : Fields.info(payload);
      if (!(info instanceof GenericRecord r)) {
        throw new HudiTableException("record_index entry '" + key + "' carries no recordIndexMetadata");
      }
      return new Info(key, r, Fields.of(r.getSchema()));
    }

    /** The partition as the index names it ({@link MetadataKeys#partitionId}). */
    String partitionName() {
      Object partition = f.get(r, f.partitionName);
      if (partition == null) {
        throw new HudiTableException("record_index entry '" + key + "' has no partitionName");
      }
      return partition.toString();
    }

    Long instantTime() {
      Object instant = f.get(r, f.instantTime);
      return instant == null ? null : ((Number) instant).longValue();
    }

    String fileId() {
      Object id = fileIdSource();
      return id instanceof UuidFileId u ? u.text() : (String) id;
    }

    /** What the file id is made of: its string (fileIdEncoding 1) or a {@link UuidFileId} (0). */
    Object fileIdSource() {
      Object encoding = f.get(r, f.fileIdEncoding);
      int code = encoding == null ? UUID_ENCODING : ((Number) encoding).intValue();
      if (code == RAW_ENCODING) {
        Object raw = f.get(r, f.fileId);
        if (raw == null || raw.toString().isEmpty()) {
          throw new HudiTableException("record_index entry '" + key + "' has fileIdEncoding 1 but no fileId");
        }
        return raw.toString();
      }
      if (code != UUID_ENCODING) {
        throw new HudiTableException("record_index entry '" + key + "' has unknown fileIdEncoding " + code);
      }
      Object high = f.get(r, f.fileIdHighBits);
      Object low = f.get(r, f.fileIdLowBits);
      Object index = f.get(r, f.fileIndex);
      if (high == null || low == null || index == null) {
        throw new HudiTableException("record_index entry '" + key + "' lacks fileIdHighBits/LowBits/fileIndex");
      }
      return new UuidFileId(((Number) high).longValue(), ((Number) low).longValue(), ((Number) index).intValue());
    }
  }

  /**
   * Positions of the HoodieRecordIndexInfo fields in one writer schema (-1: the schema lacks the field, as
   * versions before fileIdEncoding do), found once per schema: by name, every field read is a map lookup.
   * The last schema's are kept per thread: each slice's decoder parses a schema of its own, and one slot
   * shared by the threads of a parallel lookup thrashed between them.
   */
  record Fields(
    Schema schema,
    int partitionName,
    int instantTime,
    int fileIdEncoding,
    int fileId,
    int fileIdHighBits,
    int fileIdLowBits,
    int fileIndex
  ) {
    private static final ThreadLocal<Fields> LAST = new ThreadLocal<>();
    private static final ThreadLocal<PayloadPosition> LAST_INFO = new ThreadLocal<>();

    static Fields of(Schema schema) {
      Fields f = LAST.get();
      if (f == null || f.schema != schema) {
        f = new Fields(
          schema,
          pos(schema, "partitionName"),
          pos(schema, "instantTime"),
          pos(schema, "fileIdEncoding"),
          pos(schema, "fileId"),
          pos(schema, "fileIdHighBits"),
          pos(schema, "fileIdLowBits"),
          pos(schema, "fileIndex")
        );
        LAST.set(f);
      }
      return f;
    }

    private static int pos(Schema schema, String name) {
      Schema.Field field = schema.getField(name);
      return field == null ? -1 : field.pos();
    }

    Object get(GenericRecord r, int pos) {
      return pos < 0 ? null : r.get(pos);
    }

    /** The payload's recordIndexMetadata; its position is kept with the thread's last schema. */
    static Object info(GenericRecord payload) {
      Schema schema = payload.getSchema();
      PayloadPosition i = LAST_INFO.get();
      if (i == null || i.schema != schema) {
        i = new PayloadPosition(schema, pos(schema, PAYLOAD_FIELD));
        LAST_INFO.set(i);
      }
      return i.pos < 0 ? null : payload.get(i.pos);
    }

    private record PayloadPosition(Schema schema, int pos) {}
  }
}
