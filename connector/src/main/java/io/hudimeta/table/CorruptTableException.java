package io.hudimeta.table;

/** A table file exists but cannot be trusted (bad properties, unreadable instant file...). */
public final class CorruptTableException extends HudiTableException {

  public CorruptTableException(String message) {
    super(message);
  }

  public CorruptTableException(String message, Throwable cause) {
    super(message, cause);
  }
}
