package io.hudimeta.spark;

import io.hudimeta.table.TableNotFoundException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Hudi table as Spark sees it: its schema and a way to scan it, or to hand a write to pyhudi.
 * The table may not exist yet (a write creates it), so its snapshot is loaded on first use.
 */
final class HudiMetaTable implements SupportsRead, SupportsWrite {

  // No BATCH_WRITE, on purpose: Spark 4.3's DataFrameWriter.save rejects ErrorIfExists and Ignore
  // for a table that advertises it, and sends every mode to HudiMetaSource.createRelation when it
  // does not. V1_BATCH_WRITE + TRUNCATE serve V2 write plans (INSERT INTO/OVERWRITE) through the
  // V1Write of HudiWriteBuilder; ACCEPT_ANY_SCHEMA because incoming rows lack the _hoodie_ columns.
  private static final Set<TableCapability> CAPABILITIES = EnumSet.of(
    TableCapability.BATCH_READ,
    TableCapability.V1_BATCH_WRITE,
    TableCapability.TRUNCATE,
    TableCapability.ACCEPT_ANY_SCHEMA
  );

  private final CaseInsensitiveStringMap options;
  private final StructType givenSchema;
  private TableSnapshot snapshot;

  /**
   * @param options those of the read or write, or a catalog table's properties, "path" included
   * @param givenSchema the schema Spark passed: inferred (read), user-specified (read) or the data's (write)
   * @param snapshot the snapshot that schema was inferred from, or null to load it on first use
   */
  HudiMetaTable(Map<String, String> options, StructType givenSchema, TableSnapshot snapshot) {
    this.options = new CaseInsensitiveStringMap(options);
    this.givenSchema = givenSchema;
    this.snapshot = snapshot;
  }

  /** Throws TableNotFoundException ("no Hudi table at ...") when there is no table yet. */
  private TableSnapshot snapshot() {
    if (snapshot == null) {
      snapshot = TableSnapshot.load(ReadOptions.parse(options));
    }
    return snapshot;
  }

  @Override
  public String name() {
    return "hudi-meta:" + options.get("path");
  }

  @Override
  public StructType schema() {
    try {
      return snapshot().schema();
    } catch (TableNotFoundException e) {
      return givenSchema; // a table the write is about to create: the incoming data's schema
    }
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap readOptions) {
    TableSnapshot s = snapshotFor(readOptions);
    if (givenSchema != null && !givenSchema.equals(s.schema())) {
      throw new IllegalArgumentException(
        "hudi-meta: a Hudi table is read with its own schema; drop the " +
          "user-specified schema (.schema(...)) of this read. The table's schema: " +
          s.schema().simpleString()
      );
    }
    return new HudiScanBuilder(s);
  }

  /**
   * The snapshot one read sees: the table's options with the read's own on top, so a catalog table
   * read with .option(...) gets its query type, time travel... as a load(path) would. The table's
   * snapshot serves when the read adds nothing (load(path) passes its options to both).
   */
  private TableSnapshot snapshotFor(CaseInsensitiveStringMap readOptions) {
    Map<String, String> merged = new HashMap<>(options);
    merged.putAll(readOptions);
    if (options.containsKey("path")) {
      merged.put("path", options.get("path")); // a catalog table is its location, whatever the read says
    }
    CaseInsensitiveStringMap effective = new CaseInsensitiveStringMap(merged);
    return effective.equals(options) ? snapshot() : TableSnapshot.load(ReadOptions.parse(effective));
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new HudiWriteBuilder(info.options().asCaseSensitiveMap());
  }
}
