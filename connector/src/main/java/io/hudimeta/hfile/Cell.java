package io.hudimeta.hfile;

import java.nio.charset.StandardCharsets;

/**
 * One HFile cell as Hudi uses it: the row bytes (the record key) and the value bytes.
 * Family, qualifier, timestamp and type carry no information in Hudi files and are dropped.
 */
public record Cell(byte[] row, byte[] value) {
  /** The row decoded as UTF-8 (Hudi record keys are UTF-8 strings). */
  public String rowString() {
    return new String(row, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "Cell[" + rowString() + ", " + value.length + " value bytes]";
  }
}
