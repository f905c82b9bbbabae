package io.hudimeta.index;

import io.hudimeta.metadata.MetadataKeys;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The partition paths and file ids of record_index entries as Spark strings, each made once per lookup
 * task: a table has far fewer file groups than keys, and formatting a UUID file id and encoding it for every
 * key found was a good part of the executor lookup's time. Not thread-safe.
 */
final class LocationStrings {

  private final Map<String, UTF8String> partitions = new HashMap<>();
  /** By what the file id is made of ({@link RecordLocation.Info#fileIdSource}). */
  private final Map<Object, UTF8String> fileIds = new HashMap<>();

  /** The entry's data partition path. */
  UTF8String partition(RecordLocation.Info info) {
    return partitions.computeIfAbsent(info.partitionName(), p -> UTF8String.fromString(MetadataKeys.partitionPath(p)));
  }

  /** The entry's file id. */
  UTF8String fileId(RecordLocation.Info info) {
    Object source = info.fileIdSource();
    UTF8String id = fileIds.get(source);
    if (id == null) {
      id = UTF8String.fromString(source instanceof RecordLocation.UuidFileId u ? u.text() : (String) source);
      fileIds.put(source, id);
    }
    return id;
  }
}
