package io.hudimeta.index;

import io.hudimeta.HudiException;

/** The table has no record index a reader may use (none, still being built, or not readable). */
public final class NoRecordIndexException extends HudiException {

  private static final long serialVersionUID = 1L;

  NoRecordIndexException(String basePath, String why) {
    super(
      "hudi-meta: the table at " +
        basePath +
        " has no record index" +
        (why.isEmpty() ? "" : " (" + why + ")") +
        "; enable hoodie.metadata.record.index.enable and write, or build it with pyhudi index create " +
        basePath
    );
  }
}
