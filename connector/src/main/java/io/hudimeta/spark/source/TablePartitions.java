package io.hudimeta.spark.source;

import io.hudimeta.spark.bridge.WriteClients;
import io.hudimeta.spark.options.WriteOptions;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.table.DroppedPartitions;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * A table's partitions as Spark's partition commands see them: one value per partition column,
 * parsed from and rendered to Hudi partition paths (hive-style {@code col=value} or bare values,
 * URL-encoded when the table says so).
 */
final class TablePartitions {

  private static final String NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__";

  private final HudiMetaTable table;
  private final TableSnapshot snapshot; // null: no table yet
  private final StructType schema;

  TablePartitions(HudiMetaTable table, TableSnapshot snapshot) {
    this.table = table;
    this.snapshot = snapshot;
    this.schema = snapshot == null ? new StructType() : columns(snapshot);
  }

  /** The partition columns that are columns of the table (a derived partition path has none). */
  private static StructType columns(TableSnapshot snapshot) {
    List<String> fields = snapshot.config().partitionFields();
    List<StructField> out = new ArrayList<>();
    for (String f : fields) {
      for (StructField c : snapshot.schema().fields()) {
        if (c.name().equals(f)) {
          out.add(c);
        }
      }
    }
    return out.size() == fields.size() ? new StructType(out.toArray(new StructField[0])) : new StructType();
  }

  StructType schema() {
    return schema;
  }

  Transform[] partitioning() {
    Transform[] out = new Transform[schema.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Expressions.identity(schema.fields()[i].name());
    }
    return out;
  }

  /** The partitions whose columns {@code names} hold the values of {@code ident}. */
  InternalRow[] list(String[] names, InternalRow ident) {
    List<InternalRow> out = new ArrayList<>();
    for (String path : live()) {
      InternalRow row = parse(path);
      if (row != null && matches(row, names, ident)) {
        out.add(row);
      }
    }
    return out.toArray(new InternalRow[0]);
  }

  /** The listed partitions less those dropped (Hudi's SHOW PARTITIONS: {@link DroppedPartitions}). */
  private List<String> live() {
    if (snapshot == null) {
      return List.of();
    }
    Set<String> dropped = DroppedPartitions.of(snapshot.timeline());
    return snapshot
      .partitions()
      .stream()
      .filter(p -> !dropped.contains(p))
      .toList();
  }

  /** ALTER TABLE DROP PARTITION: one delete_partition write, as Apache Hudi runs it. */
  boolean drop(InternalRow ident) {
    String path = render(ident);
    if (!live().contains(path)) {
      return false;
    }
    Map<String, String> options = new LinkedHashMap<>(table.writeOptions());
    options.put(WriteOptions.OPERATION, "delete_partition");
    options.put(WriteOptions.PARTITIONS_TO_DELETE, path);
    WriteClients.write(table.noRows(), options, "append");
    return true;
  }

  private boolean matches(InternalRow row, String[] names, InternalRow ident) {
    for (int i = 0; i < names.length; i++) {
      int at = schema.fieldIndex(names[i]);
      DataType type = schema.fields()[at].dataType();
      if (!Objects.equals(row.get(at, type), ident.get(i, type))) {
        return false;
      }
    }
    return true;
  }

  private InternalRow parse(String path) {
    String[] parts = path.split("/");
    if (schema.isEmpty() || parts.length != schema.size()) {
      return null;
    }
    Object[] values = new Object[parts.length];
    for (int i = 0; i < parts.length; i++) {
      StructField f = schema.fields()[i];
      String raw = snapshot.config().hiveStylePartitioning() ? parts[i].substring(parts[i].indexOf('=') + 1) : parts[i];
      String text = snapshot.config().urlEncodePartitioning() ? URLDecoder.decode(raw, StandardCharsets.UTF_8) : raw;
      values[i] = text.equals(NULL_PARTITION) ? null : fromString(text, f.dataType());
    }
    return new GenericInternalRow(values);
  }

  private String render(InternalRow ident) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < schema.size(); i++) {
      StructField f = schema.fields()[i];
      Object v = ident.get(i, f.dataType());
      String text = v == null ? NULL_PARTITION : toString(v, f.dataType());
      text = snapshot.config().urlEncodePartitioning() ? URLEncoder.encode(text, StandardCharsets.UTF_8) : text;
      parts.add(snapshot.config().hiveStylePartitioning() ? f.name() + "=" + text : text);
    }
    return String.join("/", parts);
  }

  private static Object fromString(String text, DataType type) {
    Literal s = new Literal(UTF8String.fromString(text), DataTypes.StringType);
    return new Cast(s, type, Option.apply("UTC")).eval(null);
  }

  private static String toString(Object value, DataType type) {
    return new Cast(new Literal(value, type), DataTypes.StringType, Option.apply("UTC")).eval(null).toString();
  }
}
