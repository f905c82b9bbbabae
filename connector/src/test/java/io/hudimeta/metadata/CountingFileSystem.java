package io.hudimeta.metadata;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * A file system wrapper that records every directory listing ({@code listStatus},
 * {@code listStatusIterator}, {@code listLocatedStatus}, {@code listFiles}, {@code globStatus}) and
 * every file opened, so tests can show which storage calls a code path makes.
 */
public class CountingFileSystem extends FilterFileSystem {

  private final List<String> listings = new ArrayList<>();
  private final List<String> opens = new ArrayList<>();

  public CountingFileSystem(FileSystem fs) {
    super(fs);
  }

  private void listed(String call, Path p) {
    synchronized (listings) {
      listings.add(call + " " + fs.makeQualified(p));
    }
  }

  /** Listing calls so far, each as {@code "<call> <qualified path>"}, in call order. */
  public List<String> listings() {
    synchronized (listings) {
      return new ArrayList<>(listings);
    }
  }

  /** Qualified paths of the files opened so far, in call order. */
  public List<String> opens() {
    synchronized (opens) {
      return new ArrayList<>(opens);
    }
  }

  public void reset() {
    synchronized (listings) {
      listings.clear();
    }
    synchronized (opens) {
      opens.clear();
    }
  }

  @Override
  public FileStatus[] listStatus(Path f) throws FileNotFoundException, IOException {
    listed("listStatus", f);
    return super.listStatus(f);
  }

  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
    listed("listStatusIterator", f);
    return super.listStatusIterator(f);
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f) throws IOException {
    listed("listLocatedStatus", f);
    return super.listLocatedStatus(f);
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listFiles(Path f, boolean recursive) throws IOException {
    listed("listFiles", f);
    return super.listFiles(f, recursive);
  }

  @Override
  public FileStatus[] globStatus(Path pattern) throws IOException {
    listed("globStatus", pattern);
    return super.globStatus(pattern);
  }

  @Override
  public FileStatus[] globStatus(Path pattern, PathFilter filter) throws IOException {
    listed("globStatus", pattern);
    return super.globStatus(pattern, filter);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    synchronized (opens) {
      opens.add(fs.makeQualified(f).toString());
    }
    return super.open(f, bufferSize);
  }
}
