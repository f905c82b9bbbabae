package io.hudimeta.hfile;

import io.hudimeta.HudiException;

/**
 * The bytes do not form a valid HFile v3: bad magic, bad sizes, or a checksum mismatch. Unchecked, like
 * the other {@link HudiException}s; I/O failures of the storage stay {@link java.io.IOException}s.
 */
public class CorruptHFileException extends HudiException {

  private static final long serialVersionUID = 1L;

  public CorruptHFileException(String message) {
    super(message);
  }

  public CorruptHFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
