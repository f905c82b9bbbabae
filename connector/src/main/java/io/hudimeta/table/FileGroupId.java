package io.hudimeta.table;

import java.io.Serializable;

/** A file group is identified by its partition path ("" when non-partitioned) and file id. */
public record FileGroupId(String partitionPath, String fileId) implements Serializable {}
