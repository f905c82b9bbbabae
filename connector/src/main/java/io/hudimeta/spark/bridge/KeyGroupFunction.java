package io.hudimeta.spark.bridge;

import io.hudimeta.metadata.MetadataKeys;
import org.apache.spark.sql.api.java.UDF2;

/**
 * Spark SQL function hudi_mdt_key_group(key, file_group_count): the metadata-table file group a
 * record_index or secondary-index key hashes to ({@link MetadataKeys#fileGroupIndex}). Registered
 * by the Python writer, which spreads index entries over executors by it; run in the JVM because
 * the hash is Java's String.hashCode.
 */
public final class KeyGroupFunction implements UDF2<String, Integer, Integer> {

  private static final long serialVersionUID = 1L;

  @Override
  public Integer call(String key, Integer fileGroupCount) {
    if (key == null || fileGroupCount == null) {
      return null;
    }
    return MetadataKeys.fileGroupIndex(key, fileGroupCount);
  }
}
