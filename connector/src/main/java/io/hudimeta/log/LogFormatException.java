package io.hudimeta.log;

import io.hudimeta.HudiException;

/**
 * A log file or block that is intact on disk but cannot be understood: an unknown block type,
 * header key or content version, or content that does not match its own schema. Unlike a torn
 * block (which the reader skips, as Hudi does) this is never silently ignored.
 */
public class LogFormatException extends HudiException {

  private static final long serialVersionUID = 1L;

  public LogFormatException(String message) {
    super(message);
  }

  public LogFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
