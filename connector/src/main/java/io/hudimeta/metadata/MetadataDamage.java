package io.hudimeta.metadata;

import io.hudimeta.table.CorruptTableException;
import io.hudimeta.table.HudiTableException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A metadata-table file readers cannot use: a base HFile that does not open or read, a log file that does
 * not parse, a block that does not decode, or a torn block in the log file of an instant readers count (a
 * completed MDT write; docs/format.md §10). A torn block of an instant that never completed is a torn write
 * and is skipped, as Apache Hudi's HoodieLogFileReader skips every corrupt block; damage never is: reading on
 * without the file's records would answer with wrong rows.
 *
 * <p>It travels as the cause of the {@link CorruptTableException} a read throws (same message), so a caller
 * that can do without the partition finds it ({@link #in}) and falls back, saying so once ({@link #report}):
 * the {@code files} partition to listing storage, an index partition to no pruning by it. The message names
 * the file and the repair command.
 */
public final class MetadataDamage extends HudiTableException {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(MetadataDamage.class);
  private static final ThreadLocal<Notes> NOTES = new ThreadLocal<>();

  private final String partition;
  private final String file;
  private final String repairCommand;

  private MetadataDamage(String partition, String file, String repairCommand, String message, Throwable cause) {
    super(message, cause);
    this.partition = partition;
    this.file = file;
    this.repairCommand = repairCommand;
  }

  /**
   * The exception a read of damaged file {@code file} of MDT partition directory {@code dir}
   * ({@code <base>/.hoodie/metadata/<partition>}) throws: a {@link CorruptTableException} whose cause is the
   * damage, both with the message that names the file, the problem and the repair.
   */
  static CorruptTableException corrupt(Path dir, Object file, String problem, Throwable cause) {
    String partition = dir.getName();
    String shown = local(new Path(String.valueOf(file)));
    Path base =
      dir.getParent() == null || dir.getParent().getParent() == null ? null : dir.getParent().getParent().getParent();
    String command =
      "pyhudi metadata repair " + (base == null ? "<table path>" : local(base)) + " --partition " + partition;
    String message =
      "metadata table partition '" +
      partition +
      "' is damaged: " +
      shown +
      " (" +
      problem +
      "); repair it with: " +
      command +
      (partition.equals(MetadataTable.FILES) ? " (or read with hoodie.metadata.enable=false)" : "");
    MetadataDamage damage = new MetadataDamage(partition, shown, command, message, cause);
    return new CorruptTableException(message, damage);
  }

  /** A local path as pyhudi's CLI takes it (no {@code file:} scheme); any other URI as it is. */
  private static String local(Path p) {
    String scheme = p.toUri().getScheme();
    return scheme == null || scheme.equals("file") ? p.toUri().getPath() : p.toString();
  }

  /** The damage among {@code t} and its causes, or null when it is another failure. */
  public static MetadataDamage in(Throwable t) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
      if (c instanceof MetadataDamage d) {
        return d;
      }
    }
    return null;
  }

  /** The MDT partition the file belongs to ({@code files}, {@code column_stats}, ...). */
  public String partition() {
    return partition;
  }

  /** The damaged file. */
  public String file() {
    return file;
  }

  /** {@code pyhudi metadata repair <table> --partition <partition>}. */
  public String repairCommand() {
    return repairCommand;
  }

  /**
   * Logs, at WARN, what the caller does instead ({@code effect}) and the damage: once per damaged file within
   * one query's {@link Notes}, every time outside any.
   */
  public void report(String effect) {
    Notes notes = NOTES.get();
    // one file met through two spellings of the table's path (file:/t and /t) is one file
    if (notes != null && notes.seen.putIfAbsent(partition + "/" + new Path(file).getName(), this) != null) {
      return;
    }
    LOG.warn("{}: {}", effect, getMessage());
  }

  /**
   * The damage one query's planning meets, each damaged file warned of once however often the plan reads it
   * (the listing and data skipping both open the {@code files} partition). Scoped to the planning thread:
   * open, plan, close.
   */
  public static final class Notes implements AutoCloseable {

    private final Notes outer;
    private final Map<String, MetadataDamage> seen = new LinkedHashMap<>();

    private Notes(Notes outer) {
      this.outer = outer;
    }

    public static Notes open() {
      Notes notes = new Notes(NOTES.get());
      NOTES.set(notes);
      return notes;
    }

    /** The damage reported so far, in the order met. */
    public List<MetadataDamage> damage() {
      return new ArrayList<>(seen.values());
    }

    /** {@code ""}, or {@code " damagedMetadata=[<message>; <message>]"} for a plan's description. */
    public String describe() {
      if (seen.isEmpty()) {
        return "";
      }
      List<String> messages = new ArrayList<>();
      seen.values().forEach(d -> messages.add(d.getMessage()));
      return " damagedMetadata=[" + String.join("; ", messages) + "]";
    }

    @Override
    public void close() {
      if (outer == null) {
        NOTES.remove();
      } else {
        NOTES.set(outer);
      }
    }
  }
}
