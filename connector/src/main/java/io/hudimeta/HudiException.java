package io.hudimeta;

/**
 * Base of every error the connector raises about a table or its files (table model, log files,
 * HFiles), so callers can catch "anything wrong with this Hudi table" at once. It sits above the
 * table, log and hfile packages so none of them has to depend on another for it.
 */
public class HudiException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public HudiException(String message) {
    super(message);
  }

  public HudiException(String message, Throwable cause) {
    super(message, cause);
  }
}
