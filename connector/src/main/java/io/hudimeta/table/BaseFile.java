package io.hudimeta.table;

import java.io.Serializable;

/**
 * A base file {@code <fileId>_<writeToken>_<instantTime>.<extension>} (docs/format.md §6.1).
 *
 * @param instantTime requested time of the commit, compaction or clustering that wrote it
 * @param size        bytes, or -1 when the listing did not say
 */
public record BaseFile(
  String name,
  String fileId,
  String writeToken,
  String instantTime,
  String extension,
  long size
) implements Serializable {}
