package io.hudimeta.spark.source;

import io.hudimeta.index.IndexDefinitions;
import io.hudimeta.spark.bridge.HudiWriteBuilder;
import io.hudimeta.spark.bridge.WriteClients;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.options.SqlTableProperties;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.table.MetaFields;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.TableNotFoundException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.IndexAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchIndexException;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.SupportsPartitionManagement;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TruncatableTable;
import org.apache.spark.sql.connector.catalog.index.SupportsIndex;
import org.apache.spark.sql.connector.catalog.index.TableIndex;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Hudi table as Spark sees it: its schema and a way to scan it, or to hand a write to pyhudi.
 * The table may not exist yet (a write creates it), so its snapshot is loaded on first use.
 * SQL's TRUNCATE TABLE and partition commands (SHOW PARTITIONS, ALTER TABLE DROP PARTITION) are
 * Hudi writes too: insert_overwrite_table and delete_partition. CREATE INDEX / DROP INDEX build and drop
 * the metadata table's indexes ({@link TableIndexes}).
 */
public final class HudiMetaTable
  implements SupportsRead, SupportsWrite, TruncatableTable, SupportsPartitionManagement, SupportsIndex
{

  // No BATCH_WRITE, on purpose: Spark 4.3's DataFrameWriter.save rejects ErrorIfExists and Ignore
  // for a table that advertises it, and sends every mode to HudiMetaSource.createRelation when it
  // does not. V1_BATCH_WRITE + TRUNCATE serve V2 write plans (INSERT INTO/OVERWRITE) through the
  // V1Write of HudiWriteBuilder; ACCEPT_ANY_SCHEMA because incoming rows lack the _hoodie_ columns.
  private static final Set<TableCapability> CAPABILITIES = EnumSet.of(
    TableCapability.BATCH_READ,
    TableCapability.MICRO_BATCH_READ,
    TableCapability.V1_BATCH_WRITE,
    TableCapability.TRUNCATE,
    TableCapability.OVERWRITE_BY_FILTER,
    TableCapability.OVERWRITE_DYNAMIC,
    TableCapability.ACCEPT_ANY_SCHEMA
  );

  private final CaseInsensitiveStringMap options;
  private final StructType givenSchema;
  private TableSnapshot snapshot;
  private boolean resolvedBySpark; // without ACCEPT_ANY_SCHEMA: Spark resolves MERGE over it

  /**
   * @param options those of the read or write, or a catalog table's properties, "path" included
   * @param givenSchema the schema Spark passed: inferred (read), user-specified (read) or the data's (write)
   * @param snapshot the snapshot that schema was inferred from, or null to load it on first use
   */
  public HudiMetaTable(Map<String, String> options, StructType givenSchema, TableSnapshot snapshot) {
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
      if (givenSchema == null) {
        throw e; // a catalog table whose location holds no Hudi table (any more)
      }
      return givenSchema; // a table the write is about to create: the incoming data's schema
    }
  }

  /**
   * What DESCRIBE TABLE EXTENDED and SHOW CREATE TABLE print as the table's properties: its provider and
   * location, and the Hudi table's own hoodie.properties (type, keys, ordering field, versions...).
   */
  @Override
  public Map<String, String> properties() {
    Map<String, String> out = new TreeMap<>();
    try {
      out.putAll(snapshot().config().properties());
    } catch (TableNotFoundException e) {
      // a table the write is about to create has no hoodie.properties yet
    }
    out.put(TableCatalog.PROP_PROVIDER, HudiMetaSource.SHORT_NAME);
    if (options.containsKey("path")) {
      out.put(TableCatalog.PROP_LOCATION, options.get("path"));
    }
    return out;
  }

  @Override
  public Set<TableCapability> capabilities() {
    if (!resolvedBySpark) {
      return CAPABILITIES;
    }
    Set<TableCapability> strict = EnumSet.copyOf(CAPABILITIES);
    strict.remove(TableCapability.ACCEPT_ANY_SCHEMA);
    return strict;
  }

  /**
   * This table as the target of a MERGE whose clauses Spark must resolve: Spark leaves MERGE over a
   * table that accepts any schema unresolved. The write then goes to the table itself.
   */
  public HudiMetaTable resolvedBySpark(boolean bySpark) {
    HudiMetaTable copy = new HudiMetaTable(options, givenSchema, snapshot());
    copy.resolvedBySpark = bySpark;
    return copy;
  }

  public boolean isResolvedBySpark() {
    return resolvedBySpark;
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
    CaseInsensitiveStringMap effective = readWith(readOptions);
    return effective.equals(options) ? snapshot() : TableSnapshot.load(ReadOptions.parse(effective));
  }

  private CaseInsensitiveStringMap readWith(CaseInsensitiveStringMap readOptions) {
    Map<String, String> merged = new HashMap<>(options);
    merged.putAll(readOptions);
    if (options.containsKey("path")) {
      merged.put("path", options.get("path")); // a catalog table is its location, whatever the read says
    }
    return new CaseInsensitiveStringMap(merged);
  }

  /**
   * The table as a read with {@code readOptions} sees it, columns included: a catalog table read as a
   * CDC query (.table(name) with options, SQL WITH (...)) has the CDC columns, as load(path) has.
   */
  public HudiMetaTable forRead(CaseInsensitiveStringMap readOptions) {
    return new HudiMetaTable(readWith(readOptions), null, snapshotFor(readOptions));
  }

  /** Whether {@code readOptions} ask for a CDC query, whose columns are not the table's. */
  public static boolean readsChanges(CaseInsensitiveStringMap readOptions) {
    return ReadOptions.asksForChanges(readOptions);
  }

  /** The existing table's config (its hoodie.properties). */
  public TableConfig config() {
    return snapshot().config();
  }

  /** The options a write of this table starts from: its own, with SQL table properties as Hudi keys. */
  public Map<String, String> writeOptions() {
    return SqlTableProperties.writeOptions(options.asCaseSensitiveMap());
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    Map<String, String> merged = new LinkedHashMap<>(writeOptions());
    merged.putAll(info.options().asCaseSensitiveMap());
    return new HudiWriteBuilder(merged, partitions().schema());
  }

  @Override
  public Transform[] partitioning() {
    return partitions().partitioning();
  }

  /** TRUNCATE TABLE: one insert_overwrite_table of no rows, so every file group is replaced. */
  @Override
  public boolean truncateTable() {
    WriteClients.write(noRows(), writeOptions(), "overwrite");
    return true;
  }

  /** A DataFrame of no rows with the table's data columns: what a write that adds none passes. */
  Dataset<Row> noRows() {
    return SparkSession.active().createDataFrame(List.of(), dataSchema());
  }

  /** Is {@code column} one of Hudi's meta columns (_hoodie_commit_time...), which writers never give? */
  public static boolean isMetaColumn(String column) {
    return MetaFields.isMetaField(column);
  }

  /** The columns a writer gives: the schema without Hudi's meta columns. */
  public StructType dataSchema() {
    return TableSnapshot.dataSchema(schema());
  }

  private TablePartitions partitions() {
    try {
      return new TablePartitions(this, snapshot());
    } catch (TableNotFoundException e) {
      return new TablePartitions(this, null);
    }
  }

  @Override
  public StructType partitionSchema() {
    return partitions().schema();
  }

  @Override
  public InternalRow[] listPartitionIdentifiers(String[] names, InternalRow ident) {
    return partitions().list(names, ident);
  }

  @Override
  public boolean dropPartition(InternalRow ident) {
    return partitions().drop(ident);
  }

  @Override
  public void createPartition(InternalRow ident, Map<String, String> properties) {
    throw new UnsupportedOperationException(
      "hudi-meta: a Hudi partition exists by its rows; INSERT INTO the table to create it"
    );
  }

  @Override
  public void replacePartitionMetadata(InternalRow ident, Map<String, String> properties) {
    throw new UnsupportedOperationException("hudi-meta: Hudi partitions carry no metadata of their own");
  }

  @Override
  public Map<String, String> loadPartitionMetadata(InternalRow ident) {
    return Map.of();
  }

  // ---- CREATE INDEX / DROP INDEX ----

  @Override
  public void createIndex(
    String indexName,
    NamedReference[] columns,
    Map<NamedReference, Map<String, String>> columnsProperties,
    Map<String, String> properties
  ) throws IndexAlreadyExistsException {
    String type = TableIndexes.type(properties);
    String column = TableIndexes.column(type, columns);
    if (TableIndexes.exists(storedConfig(), TableIndexes.RECORD.equals(type) ? type : indexName)) {
      throw new IndexAlreadyExistsException(indexName, name(), scala.Option.empty());
    }
    String path = WriteClients.path(writeOptions());
    WriteClients.get().createIndex(
      path,
      TableIndexes.partition(indexName, type),
      column,
      TableIndexes.options(properties)
    );
  }

  @Override
  public void dropIndex(String indexName) throws NoSuchIndexException {
    if (!indexExists(indexName)) {
      throw new NoSuchIndexException(indexName, name(), scala.Option.empty());
    }
    String type = TableIndexes.RECORD.equals(indexName) ? TableIndexes.RECORD : TableIndexes.SECONDARY;
    WriteClients.get().dropIndex(WriteClients.path(writeOptions()), TableIndexes.partition(indexName, type));
  }

  @Override
  public boolean indexExists(String indexName) {
    return TableIndexes.exists(storedConfig(), indexName);
  }

  @Override
  public TableIndex[] listIndexes() {
    TableSnapshot stored = TableSnapshot.load(ReadOptions.parse(options));
    IndexDefinitions defs = IndexDefinitions.load(stored.fileSystem(), new Path(stored.basePath()), stored.config());
    return TableIndexes.list(stored.config(), defs);
  }

  /** hoodie.properties as stored now (an index built since this table was resolved counts). */
  private TableConfig storedConfig() {
    return TableSnapshot.load(ReadOptions.parse(options)).config();
  }
}
