package io.hudimeta.hfile;

import java.io.IOException;

/** The bytes do not form a valid HFile v3: bad magic, bad sizes, or a checksum mismatch. */
public class CorruptHFileException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptHFileException(String message) {
        super(message);
    }

    public CorruptHFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
