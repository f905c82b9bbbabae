package io.hudimeta.view;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The synced views of this JVM, one per table, file-system class and storage config: writers, readers and the
 * timeline server of one driver share them, so each pays for a table's files once and then for new
 * instants only. The least recently used views beyond {@value #MAX_VIEWS} are closed.
 */
public final class TableViews {

  static final int MAX_VIEWS = 32;
  private static final Map<String, SyncedView> VIEWS = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, SyncedView> eldest) {
      if (size() > MAX_VIEWS) {
        eldest.getValue().close();
        return true;
      }
      return false;
    }
  };

  private TableViews() {}

  /** The view of the table at {@code basePath}, synced now. */
  public static SyncedView synced(FileSystem fs, Path basePath, ViewStorageConfig storage) {
    SyncedView view = of(fs, basePath, storage);
    return syncOrForget(view, view::sync);
  }

  /** The view, synced unless the caller's last instant and timeline hash show it is current. */
  public static SyncedView current(
    FileSystem fs,
    Path basePath,
    ViewStorageConfig storage,
    String lastInstant,
    String timelineHash
  ) {
    SyncedView view = of(fs, basePath, storage);
    return syncOrForget(view, () -> view.syncIfStale(lastInstant, timelineHash));
  }

  /** A view whose sync fails (no table there, storage down) is dropped: it must not push real ones out. */
  private static SyncedView syncOrForget(SyncedView view, Supplier<SyncedView> sync) {
    try {
      return sync.get();
    } catch (RuntimeException e) {
      synchronized (VIEWS) {
        if (VIEWS.values().removeIf(v -> v == view)) {
          view.close();
        }
      }
      throw e;
    }
  }

  private static SyncedView of(FileSystem fs, Path basePath, ViewStorageConfig storage) {
    Path qualified = fs.makeQualified(basePath);
    // by file-system class, not instance: a view keeps the instance it was made with
    String key = qualified + "|" + storage + "|" + fs.getClass().getName();
    synchronized (VIEWS) {
      return VIEWS.computeIfAbsent(key, k -> new SyncedView(fs, qualified, storage));
    }
  }

  /** Drops (and closes) every view of the table at {@code basePath}: the next call builds again. */
  public static void invalidate(String basePath) {
    String prefix = new Path(basePath).toString();
    synchronized (VIEWS) {
      VIEWS.entrySet().removeIf(e -> {
        boolean match = e.getKey().contains(prefix + "|");
        if (match) {
          e.getValue().close();
        }
        return match;
      });
    }
  }

  /** Drops every view (tests; a session's end). */
  public static void clear() {
    synchronized (VIEWS) {
      VIEWS.values().forEach(SyncedView::close);
      VIEWS.clear();
    }
  }
}
