package io.hudimeta.table;

import io.hudimeta.HudiException;

/** Base of the table-model errors, so callers can catch "anything wrong with this table" at once. */
public class HudiTableException extends HudiException {

  private static final long serialVersionUID = 1L;

  public HudiTableException(String message) {
    super(message);
  }

  public HudiTableException(String message, Throwable cause) {
    super(message, cause);
  }
}
