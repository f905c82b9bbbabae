package io.hudimeta.hfile;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Positioned reads over an HFile's bytes, wherever they live. */
interface ByteSource extends Closeable {
  long length();

  /** Reads exactly len bytes starting at file position pos. */
  void readFully(long pos, byte[] dst, int off, int len) throws IOException;

  /** Names the bytes in error messages (a path, or what an in-memory file was cut from). */
  String name();

  /** The file's modification time, or -1 for bytes held in memory (which the block cache skips). */
  default long modificationTime() {
    return -1;
  }

  static ByteSource ofBytes(byte[] bytes, String name) {
    return new ByteSource() {
      public long length() {
        return bytes.length;
      }

      public void readFully(long pos, byte[] dst, int off, int len) throws IOException {
        if (pos < 0 || pos + len > bytes.length) {
          throw new CorruptHFileException(
            "read of " +
              len +
              " bytes at offset " +
              pos +
              " runs past the end of " +
              name +
              " (" +
              bytes.length +
              " bytes)"
          );
        }
        System.arraycopy(bytes, (int) pos, dst, off, len);
      }

      public String name() {
        return name;
      }

      public void close() {}
    };
  }

  /** Opens the file once; every read is a positioned read (pread), so readers may share it. */
  static ByteSource ofHadoop(FileSystem fs, Path path) throws IOException {
    return ofHadoop(fs, fs.getFileStatus(path));
  }

  /** Same, for a file whose status a listing gave: no request to learn it again (a HEAD on S3). */
  static ByteSource ofHadoop(FileSystem fs, FileStatus status) throws IOException {
    Path path = status.getPath();
    long length = status.getLen();
    String name = path.toString(); // once: block-cache keys hash it for every block read
    FSDataInputStream in = Opened.withStatus(fs, status);
    return new ByteSource() {
      public long length() {
        return length;
      }

      public void readFully(long pos, byte[] dst, int off, int len) throws IOException {
        if (pos < 0 || pos + len > length) {
          throw new CorruptHFileException(
            "read of " + len + " bytes at offset " + pos + " runs past the end of " + name + " (" + length + " bytes)"
          );
        }
        in.readFully(pos, dst, off, len);
      }

      public String name() {
        return name;
      }

      public long modificationTime() {
        return status.getModificationTime();
      }

      public void close() throws IOException {
        in.close();
      }
    };
  }
}
