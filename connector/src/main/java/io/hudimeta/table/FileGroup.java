package io.hudimeta.table;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The committed file slices of one file group, keyed by base instant time.
 *
 * <p>Slicing rules (Hudi 1.x {@code HoodieFileGroup}, {@code AbstractTableFileSystemView}):
 * <ul>
 *   <li>a base file opens the slice of its instant when that instant is committed (see {@link Visibility});
 *       base files of pending compactions or clusterings, failed or rolled-back writes are ignored;</li>
 *   <li>a pending compaction opens an empty slice at its instant, before log files are placed, so logs
 *       completed after the compaction was planned land in it;</li>
 *   <li>layout 2: a log file counts when its deltacommit is committed, and joins the slice with the greatest
 *       base instant at or before the deltacommit's completion time (a log completed after a compaction
 *       was requested belongs to the compacted slice); with no such slice it opens one at its own instant;</li>
 *   <li>layout 1: a log file's name carries its slice's base instant; it counts when that instant is
 *       committed or is this group's pending compaction. Blocks inside it may still come from later or
 *       rolled-back deltacommits: the log reader filters blocks by INSTANT_TIME with the same
 *       {@link Visibility#isCommitted} and honours rollback command blocks.</li>
 * </ul>
 */
public final class FileGroup {

  private final FileGroupId id;
  private final NavigableMap<String, FileSlice> slices;
  private final String pendingCompaction;

  private FileGroup(FileGroupId id, NavigableMap<String, FileSlice> slices, String pendingCompaction) {
    this.id = id;
    this.slices = slices;
    this.pendingCompaction = pendingCompaction;
  }

  /** Builds the group from its listed files; {@code layoutVersion} decides how log files are placed. */
  static FileGroup build(
    FileGroupId id,
    List<BaseFile> baseFiles,
    List<LogFile> logFiles,
    Visibility visibility,
    int layoutVersion
  ) {
    TreeMap<String, Slot> slots = new TreeMap<>();
    for (BaseFile base : baseFiles) {
      if (visibility.isCommitted(base.instantTime())) {
        slots.computeIfAbsent(base.instantTime(), k -> new Slot()).keepBase(base);
      }
    }
    String compaction = visibility.pendingCompaction(id);
    if (compaction != null) {
      slots.computeIfAbsent(compaction, k -> new Slot());
    }
    List<LogFile> sorted = new ArrayList<>(logFiles);
    sorted.sort(LogFile.ORDER);
    for (LogFile log : sorted) {
      String key =
        layoutVersion >= 2 ? sliceByCompletion(slots, log, visibility) : sliceByName(log, visibility, compaction);
      if (key != null) {
        slots.computeIfAbsent(key, k -> new Slot()).logs.add(log);
      }
    }
    TreeMap<String, FileSlice> slices = new TreeMap<>();
    slots.forEach((instant, slot) -> slices.put(instant, slot.toSlice(id, instant)));
    return new FileGroup(id, slices, compaction);
  }

  private static String sliceByCompletion(TreeMap<String, Slot> slots, LogFile log, Visibility visibility) {
    if (!visibility.isCommitted(log.instantTime())) {
      return null;
    }
    String completion = visibility.completionTime(log.instantTime());
    // archived deltacommits have no known completion time; their requested time is the best lower bound
    String key = slots.floorKey(completion != null ? completion : log.instantTime());
    return key != null ? key : log.instantTime();
  }

  private static String sliceByName(LogFile log, Visibility visibility, String compaction) {
    String base = log.instantTime();
    return base.equals(compaction) || visibility.isCommitted(base) ? base : null;
  }

  public FileGroupId id() {
    return id;
  }

  public String partitionPath() {
    return id.partitionPath();
  }

  public String fileId() {
    return id.fileId();
  }

  /** All committed slices, oldest first; a pending compaction's slice has no base file. */
  public List<FileSlice> slices() {
    return Collections.unmodifiableList(new ArrayList<>(slices.values()));
  }

  /** The newest slice as stored, or null. */
  public FileSlice latestSlice() {
    Map.Entry<String, FileSlice> last = slices.lastEntry();
    return last == null ? null : last.getValue();
  }

  /** Instant of the pending compaction planned on this group, or null. */
  public String pendingCompactionInstant() {
    return pendingCompaction;
  }

  /**
   * The slice a reader should merge: the newest one, except that while a compaction is pending its
   * still-unwritten slice is joined to the previous one (previous base + both slices' logs), as Hudi's
   * {@code getLatestMergedFileSlicesBeforeOrOn} does. Null when nothing is readable.
   */
  public FileSlice latestMergedSlice() {
    Map.Entry<String, FileSlice> last = slices.lastEntry();
    if (last == null) {
      return null;
    }
    FileSlice newest = last.getValue();
    Map.Entry<String, FileSlice> previous = slices.lowerEntry(last.getKey());
    if (!last.getKey().equals(pendingCompaction) || previous == null) {
      return newest.isEmpty() ? null : newest;
    }
    FileSlice prev = previous.getValue();
    List<LogFile> logs = new ArrayList<>(prev.logFiles());
    logs.addAll(newest.logFiles());
    logs.sort(LogFile.ORDER);
    return new FileSlice(
      prev.partitionPath(),
      prev.fileId(),
      prev.baseInstantTime(),
      prev.baseFile(),
      Collections.unmodifiableList(logs)
    );
  }

  /** Files collected for one slice while building. */
  private static final class Slot {

    private BaseFile base;
    private final List<LogFile> logs = new ArrayList<>();

    /** Two base files for one instant are leftovers of a retried task; keep one deterministically. */
    void keepBase(BaseFile candidate) {
      if (base == null || candidate.name().compareTo(base.name()) > 0) {
        base = candidate;
      }
    }

    FileSlice toSlice(FileGroupId id, String instant) {
      logs.sort(LogFile.ORDER);
      return new FileSlice(id.partitionPath(), id.fileId(), instant, base, Collections.unmodifiableList(logs));
    }
  }
}
