package io.hudimeta.table;

/** Base of the table-model errors, so callers can catch "anything wrong with this table" at once. */
public class HudiTableException extends RuntimeException {
  public HudiTableException(String message) {
    super(message);
  }

  public HudiTableException(String message, Throwable cause) {
    super(message, cause);
  }
}
