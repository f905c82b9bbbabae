package io.hudimeta.spark.merge;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The records of a file slice's log files, keyed by record key and merged in log order, then
 * merged with the base file's rows. Merge rules follow Hudi's: commit-time ordering lets the later
 * write win; event-time ordering lets the later write win unless its ordering value is smaller.
 * A delete without an ordering value (Hudi writes 0) wins by log order alone.
 *
 * <p>Position-based merging (Apache Hudi 1.0): while every record came with its base-file row position, a base
 * row finds its log record by position and its key is never read; one record merged by key turns that off, and
 * every base row's key is read as before.
 *
 * <p>Keys are held as {@link UTF8String}s: a base row's key is looked up as the bytes its column vector holds,
 * with no String decoded per row.
 */
public final class LogRecordBuffer {

  /** One key's surviving version: a row, or a delete (row == null). */
  private static final class Entry {

    final InternalRow row;

    @SuppressWarnings("rawtypes")
    final Comparable ordering;

    final boolean naturalOrderDelete;

    @SuppressWarnings("rawtypes")
    Entry(InternalRow row, Comparable ordering, boolean naturalOrderDelete) {
      this.row = row;
      this.ordering = ordering;
      this.naturalOrderDelete = naturalOrderDelete;
    }

    boolean isDelete() {
      return row == null;
    }
  }

  /** What a record merged by key passes as its position. */
  static final long NO_POSITION = -1;

  private final MergeSpec spec;
  private final Map<UTF8String, Entry> entries = new LinkedHashMap<>();
  /** The record key at each position the logs name; null once a record was merged by key. */
  private PositionKeys keyAt = new PositionKeys();

  LogRecordBuffer(MergeSpec spec) {
    this.spec = spec;
  }

  int size() {
    return entries.size();
  }

  void addRecord(InternalRow row, long position) {
    InternalRow copy = row.copy();
    UTF8String key = spec.key(copy); // of the copy: the row given may reuse its buffers for the next record
    remember(position, key);
    Entry e = spec.isSoftDeleted(copy)
      ? new Entry(null, spec.ordering(copy), false)
      : new Entry(copy, spec.ordering(copy), false);
    put(key, e);
  }

  @SuppressWarnings("rawtypes")
  void addDelete(String key, Comparable ordering, long position) {
    UTF8String bytes = key == null ? null : UTF8String.fromString(key);
    remember(position, bytes);
    boolean natural = ordering == null || isDefault(ordering);
    put(bytes, new Entry(null, natural ? null : ordering, natural));
  }

  private void remember(long position, UTF8String key) {
    if (position == NO_POSITION) {
      keyAt = null; // this key may be at any base row: read every base row's key
    } else if (keyAt != null && key != null) {
      keyAt.put(position, key);
    }
  }

  private void put(UTF8String key, Entry newer) {
    Entry older = entries.get(key);
    if (older == null || newerWins(newer, older)) {
      entries.put(key, newer);
    }
  }

  @SuppressWarnings({ "unchecked", "rawtypes" })
  private boolean newerWins(Entry newer, Entry older) {
    if (!spec.eventTimeOrdering || newer.naturalOrderDelete || older.naturalOrderDelete) {
      return true;
    }
    Comparable n = newer.ordering;
    Comparable o = older.ordering;
    if (n == null || o == null) {
      return n != null || o == null;
    }
    return n.compareTo(o) >= 0;
  }

  /**
   * Whether the base-file row at {@code position} may come out other than it is: false only when positions say no
   * log record names it and no row can be soft-deleted.
   */
  boolean mayChange(long position) {
    return keyAt == null || spec.isDeletedIndex >= 0 || keyAt.get(position) != null;
  }

  /**
   * The row to emit for the base-file row at {@code position} (null when it is deleted); consumes the key's
   * entry. A base row no log record names passes as it is, unless soft-deleted.
   */
  InternalRow mergeBase(InternalRow base, long position) {
    UTF8String key = keyAt != null ? keyAt.get(position) : spec.key(base);
    Entry log = key == null ? null : entries.remove(key);
    if (log == null) {
      return spec.isSoftDeleted(base) ? null : base;
    }
    Entry baseEntry = new Entry(base, spec.ordering(base), false);
    Entry winner = newerWins(log, baseEntry) ? log : baseEntry;
    return winner.isDelete() || spec.isSoftDeleted(winner.row) ? null : winner.row;
  }

  /** Rows only in the logs (inserts into log files), after every base row was merged. */
  Iterator<InternalRow> remaining() {
    return entries
      .values()
      .stream()
      .filter(e -> !e.isDelete())
      .map(e -> e.row)
      .iterator();
  }

  /** Receives every key's surviving version: a record's row, or a deleted key with its ordering value. */
  interface Sink {
    void record(InternalRow row);

    void delete(UTF8String key, Object ordering);
  }

  /** Every key's surviving version in log order, deletes included (what a log compaction writes). */
  void drainTo(Sink sink) {
    entries.forEach((key, e) -> {
      if (e.isDelete()) {
        sink.delete(key, e.ordering);
      } else {
        sink.record(e.row);
      }
    });
    entries.clear();
  }

  private static boolean isDefault(Object v) {
    return v instanceof Number && ((Number) v).doubleValue() == 0.0;
  }
}
