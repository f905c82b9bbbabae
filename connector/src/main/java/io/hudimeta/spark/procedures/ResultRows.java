package io.hudimeta.spark.procedures;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hudimeta.HudiException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/** A procedure's rows as Spark holds them, from Java values or from pyhudi's JSON (objects by column). */
final class ResultRows {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ResultRows() {}

  static List<InternalRow> of(StructType schema, List<Object[]> rows) {
    List<InternalRow> out = new ArrayList<>();
    for (Object[] row : rows) {
      Object[] values = new Object[row.length];
      for (int i = 0; i < row.length; i++) {
        values[i] = row[i] instanceof String s ? UTF8String.fromString(s) : row[i];
      }
      out.add(new GenericInternalRow(values));
    }
    return out;
  }

  /**
   * A JSON array of objects, each keyed by exactly the schema's columns: the procedure's declaration here
   * (Registry) is the one owner of its columns, and a row of pyhudi's with a key more or less is refused.
   */
  static List<InternalRow> fromJson(StructType schema, String json) {
    JsonNode array;
    try {
      array = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new HudiException("pyhudi returned rows that are not JSON: " + json, e);
    }
    Set<String> columns = new TreeSet<>(List.of(schema.fieldNames()));
    List<InternalRow> out = new ArrayList<>();
    for (JsonNode object : array) {
      Set<String> keys = new TreeSet<>();
      object.fieldNames().forEachRemaining(keys::add);
      if (!keys.equals(columns)) {
        throw new HudiException("pyhudi returned a row keyed " + keys + ", not by the procedure's columns " + columns);
      }
      Object[] values = new Object[schema.size()];
      for (int i = 0; i < values.length; i++) {
        StructField f = schema.fields()[i];
        values[i] = value(object.get(f.name()), f.dataType());
      }
      out.add(new GenericInternalRow(values));
    }
    return out;
  }

  private static Object value(JsonNode node, DataType type) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (type.equals(DataTypes.StringType)) {
      return UTF8String.fromString(node.isTextual() ? node.asText() : node.toString());
    }
    if (type.equals(DataTypes.IntegerType)) {
      return node.asInt();
    }
    if (type.equals(DataTypes.LongType)) {
      return node.asLong();
    }
    if (type.equals(DataTypes.DoubleType)) {
      return node.asDouble();
    }
    if (type.equals(DataTypes.BooleanType)) {
      return node.asBoolean();
    }
    throw new IllegalArgumentException("no JSON conversion for " + type);
  }
}
