package io.hudimeta.metadata;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * The local file system, recording every directory listing and file opened by any instance while
 * {@link #start} is on: a test sets {@code fs.file.impl} to this class to count the storage calls of a
 * whole code path (writer view, reads, timeline server) without passing a file system through it.
 */
public class CountingLocalFileSystem extends LocalFileSystem {

  private static final List<String> LISTINGS = new ArrayList<>();
  private static final List<String> OPENS = new ArrayList<>();
  private static volatile boolean recording;

  public static synchronized void start() {
    LISTINGS.clear();
    OPENS.clear();
    recording = true;
  }

  public static synchronized void stop() {
    recording = false;
  }

  /** Listing calls since {@link #start}, each {@code "<call> <path>"}. */
  public static synchronized List<String> listings() {
    return new ArrayList<>(LISTINGS);
  }

  /** Paths of the files opened since {@link #start}. */
  public static synchronized List<String> opens() {
    return new ArrayList<>(OPENS);
  }

  private static synchronized void record(List<String> into, String what) {
    if (recording) {
      into.add(what);
    }
  }

  @Override
  public FileStatus[] listStatus(Path f) throws FileNotFoundException, IOException {
    record(LISTINGS, "listStatus " + f);
    return super.listStatus(f);
  }

  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
    record(LISTINGS, "listStatusIterator " + f);
    return super.listStatusIterator(f);
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f) throws IOException {
    record(LISTINGS, "listLocatedStatus " + f);
    return super.listLocatedStatus(f);
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listFiles(Path f, boolean recursive) throws IOException {
    record(LISTINGS, "listFiles " + f);
    return super.listFiles(f, recursive);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    record(OPENS, f.toString());
    return super.open(f, bufferSize);
  }
}
