package io.hudimeta.metadata;

import org.apache.avro.generic.GenericRecord;

/**
 * What a search of a metadata file slice finds for its keys, in the order the slice's files apply: the
 * base file's records first, then each log block's, oldest first; so for any one key the last call wins.
 * Keys are named by their index among the keys sought.
 */
public interface KeyVisitor {
  /** Key {@code key} has {@code record} (a {@code HoodieMetadataRecord}) in one of the slice's files. */
  void record(int key, GenericRecord record);

  /** A delete block of the slice deletes key {@code key}. */
  void deleted(int key);
}
