package io.hudimeta.view;

import io.hudimeta.HudiException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a {@link SyncedView} keeps its files, under Apache Hudi's keys (FileSystemViewStorageConfig):
 * {@code hoodie.filesystem.view.type} MEMORY (default) or SPILLABLE_DISK, {@code
 * hoodie.filesystem.view.spillable.mem} (bytes kept on the heap before spilling, default 100 MB) and
 * {@code hoodie.filesystem.view.spillable.dir} (default /tmp/); and whether the view may list from the
 * metadata table ({@code hoodie.metadata.enable}, default true).
 *
 * @param metadataEnabled false: list storage even where a metadata table is in sync
 */
public record ViewStorageConfig(String type, long spillableMemBytes, String spillableDir, boolean metadataEnabled) {
  public static final String TYPE = "hoodie.filesystem.view.type";
  public static final String SPILLABLE_MEM = "hoodie.filesystem.view.spillable.mem";
  public static final String SPILLABLE_DIR = "hoodie.filesystem.view.spillable.dir";
  public static final String METADATA_ENABLE = "hoodie.metadata.enable";
  public static final String MEMORY = "MEMORY";
  public static final String SPILLABLE_DISK = "SPILLABLE_DISK";
  /** Client-side types: they name where a client asks, and the server then keeps its view in memory. */
  private static final Set<String> REMOTE = Set.of("REMOTE_FIRST", "REMOTE_ONLY");

  public static final ViewStorageConfig DEFAULT = new ViewStorageConfig(MEMORY, 100L * 1024 * 1024, "/tmp/", true);

  /** The config named by {@code options} (Hudi keys; others ignored); a bad value fails naming key and choices. */
  public static ViewStorageConfig of(Map<String, String> options) {
    String type = options.getOrDefault(TYPE, MEMORY).trim().toUpperCase(Locale.ROOT);
    if (REMOTE.contains(type)) {
      type = MEMORY;
    } else if (!type.equals(MEMORY) && !type.equals(SPILLABLE_DISK)) {
      throw new HudiException(
        TYPE +
          "=" +
          options.get(TYPE) +
          " is not supported; valid values: MEMORY, SPILLABLE_DISK (REMOTE_FIRST and REMOTE_ONLY name a " +
          "client's choice and keep the server's view in memory)"
      );
    }
    long mem = DEFAULT.spillableMemBytes;
    String raw = options.get(SPILLABLE_MEM);
    if (raw != null) {
      try {
        mem = Long.parseLong(raw.trim());
      } catch (NumberFormatException e) {
        mem = -1;
      }
      if (mem <= 0) {
        throw new HudiException(SPILLABLE_MEM + "=" + raw + " is not valid; give a positive number of bytes");
      }
    }
    String dir = options.getOrDefault(SPILLABLE_DIR, DEFAULT.spillableDir);
    boolean mdt = !"false".equalsIgnoreCase(options.getOrDefault(METADATA_ENABLE, "true").trim());
    return new ViewStorageConfig(type, mem, dir, mdt);
  }

  PartitionFileStore newStore() {
    return type.equals(SPILLABLE_DISK)
      ? new SpillableFileStore(spillableMemBytes, spillableDir)
      : new MemoryFileStore();
  }
}
