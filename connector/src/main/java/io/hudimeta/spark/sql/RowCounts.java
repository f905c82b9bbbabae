package io.hudimeta.spark.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hudimeta.spark.bridge.WriteClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.TreePattern;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.execution.command.LeafRunnableCommand;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;

/**
 * An UPDATE, DELETE or MERGE whose result is the rows it changed, as Delta Lake's commands return them
 * ({@code num_affected_rows}; MERGE also by kind). The counts are the commit's own (the sums of its
 * HoodieWriteStats: numUpdateWrites, numDeletes, numInserts), as pyhudi reports them after the write.
 * The Hudi write is held, not a child, so it is analysed and run whole when the command runs.
 */
final class RowCounts extends LogicalPlan implements LeafRunnableCommand {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The statement, and the columns Delta answers it with. */
  enum Kind {
    UPDATE("num_affected_rows"),
    DELETE("num_affected_rows"),
    MERGE("num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows");

    private final StructType schema;

    Kind(String... columns) {
      StructType s = new StructType();
      for (String c : columns) {
        s = s.add(c, DataTypes.LongType, false);
      }
      schema = s;
    }
  }

  private final LogicalPlan write;
  private final Kind kind;
  private final Seq<Attribute> output;

  @SuppressWarnings("unchecked")
  RowCounts(LogicalPlan write, Kind kind) {
    this.write = write;
    this.kind = kind;
    this.output = (Seq<Attribute>) (Seq<?>) DataTypeUtils.toAttributes(kind.schema);
  }

  @Override
  public Seq<Row> run(SparkSession spark) {
    WriteClients.takeLastCommit(); // a write of this thread before this one is not ours
    Dataset.ofRows((org.apache.spark.sql.classic.SparkSession) spark, write);
    JsonNode commit = parse(WriteClients.takeLastCommit());
    long updated = commit.path("updated").asLong();
    long deleted = commit.path("deleted").asLong();
    long inserted = commit.path("inserted").asLong();
    Row row = switch (kind) {
      case UPDATE -> RowFactory.create(updated);
      case DELETE -> RowFactory.create(deleted);
      case MERGE -> RowFactory.create(updated + deleted + inserted, updated, deleted, inserted);
    };
    return Catalyst.seq(List.of(row));
  }

  private static JsonNode parse(String commit) {
    try {
      return commit == null ? JSON.createObjectNode() : JSON.readTree(commit);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: pyhudi's commit counts are not JSON: " + commit, e);
    }
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<LogicalPlan> children() {
    return Catalyst.seq(List.of());
  }

  @Override
  public LogicalPlan withNewChildrenInternal(scala.collection.immutable.IndexedSeq<LogicalPlan> children) {
    return this; // a leaf
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return scala.collection.immutable.Map$.MODULE$.empty();
  }

  @Override
  public Seq<scala.Enumeration.Value> nodePatterns() {
    return Catalyst.seq(List.of(TreePattern.COMMAND()));
  }

  @Override
  public void org$apache$spark$sql$catalyst$plans$logical$Command$_setter_$nodePatterns_$eq(
    Seq<scala.Enumeration.Value> patterns
  ) {
    // Command's val, fixed by nodePatterns() above
  }

  @Override
  public String simpleString(int maxFields) {
    return "RowCounts " + kind.name().toLowerCase(java.util.Locale.ROOT) + ": " + write.simpleString(maxFields);
  }

  @Override
  public int productArity() {
    return 0; // nothing for Spark's tree rules to rewrite: the write is analysed when the command runs
  }

  @Override
  public Object productElement(int n) {
    throw new IndexOutOfBoundsException(n);
  }

  @Override
  public boolean canEqual(Object that) {
    return that == this;
  }
}
