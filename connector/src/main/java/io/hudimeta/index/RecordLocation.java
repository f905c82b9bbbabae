package io.hudimeta.index;

import io.hudimeta.metadata.MetadataKeys;
import io.hudimeta.metadata.MetadataRecord;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.HudiTableException;
import java.io.Serializable;
import java.util.UUID;
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

  public FileGroupId fileGroupId() {
    return new FileGroupId(partitionPath, fileId);
  }

  /** The location a merged record_index record (type 5) holds. */
  public static RecordLocation decode(MetadataRecord record) {
    GenericRecord payload = record.payload();
    Object info =
      payload == null || record.type() != MetadataRecord.TYPE_RECORD_INDEX ? null : payload.get("recordIndexMetadata");
    if (!(info instanceof GenericRecord r)) {
      throw new HudiTableException("record_index entry '" + record.key() + "' carries no recordIndexMetadata");
    }
    Object partition = r.get("partitionName");
    if (partition == null) {
      throw new HudiTableException("record_index entry '" + record.key() + "' has no partitionName");
    }
    Object instant = r.get("instantTime");
    return new RecordLocation(
      MetadataKeys.partitionPath(partition.toString()),
      fileId(record.key(), r),
      instant == null ? null : ((Number) instant).longValue()
    );
  }

  private static String fileId(String key, GenericRecord r) {
    Object encoding = r.getSchema().getField("fileIdEncoding") == null ? null : r.get("fileIdEncoding");
    int code = encoding == null ? UUID_ENCODING : ((Number) encoding).intValue();
    if (code == RAW_ENCODING) {
      Object raw = r.get("fileId");
      if (raw == null || raw.toString().isEmpty()) {
        throw new HudiTableException("record_index entry '" + key + "' has fileIdEncoding 1 but no fileId");
      }
      return raw.toString();
    }
    if (code != UUID_ENCODING) {
      throw new HudiTableException("record_index entry '" + key + "' has unknown fileIdEncoding " + code);
    }
    Object high = r.get("fileIdHighBits");
    Object low = r.get("fileIdLowBits");
    Object index = r.get("fileIndex");
    if (high == null || low == null || index == null) {
      throw new HudiTableException("record_index entry '" + key + "' lacks fileIdHighBits/LowBits/fileIndex");
    }
    return new UUID(((Number) high).longValue(), ((Number) low).longValue()) + "-" + ((Number) index).intValue();
  }
}
