package io.hudimeta.hfile;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * Opening a file whose status is known: an object store (S3A) then sends no second HEAD request to learn its
 * length, which {@code fs.open} would.
 */
public final class Opened {

  private Opened() {}

  /** The file of {@code status}, opened for positioned reads. */
  public static FSDataInputStream withStatus(FileSystem fs, FileStatus status) throws IOException {
    try {
      return fs.openFile(status.getPath()).withFileStatus(status).build().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted opening " + status.getPath());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("cannot open " + status.getPath() + ": " + cause, cause);
    }
  }
}
