package io.hudimeta.avro;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Function1;

/**
 * Diagnostics over py4j: decode Avro bytes and hand rows back as external {@link Row}s, which
 * {@code SparkSession.createDataFrame(rows, schema)} turns into a DataFrame. Used by tests and by
 * people inspecting files by hand; not on any read path.
 */
public final class AvroInspector {

  private AvroInspector() {}

  /** The Spark schema (JSON) of an Avro record schema (JSON). */
  public static String sparkSchemaJson(String avroSchemaJson) {
    return AvroSchemas.toStructType(AvroSchemas.parse(avroSchemaJson)).json();
  }

  /**
   * Decodes back-to-back Avro binary datums written with {@code writerSchemaJson} and converts
   * them to rows of {@code requestedSchemaJson} (a Spark StructType as JSON; null: the full
   * mapping of the writer schema).
   */
  public static List<Row> decode(String writerSchemaJson, byte[] datums, String requestedSchemaJson)
    throws IOException {
    Schema writer = AvroSchemas.parse(writerSchemaJson);
    StructType requested =
      requestedSchemaJson == null
        ? AvroSchemas.toStructType(writer)
        : (StructType) DataType.fromJson(requestedSchemaJson);
    AvroRowConverter converter = new AvroRowConverter(writer, requested);
    GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(writer);
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(datums, null);
    List<InternalRow> rows = new ArrayList<>();
    while (!decoder.isEnd()) {
      rows.add(converter.convert(reader.read(null, decoder)));
    }
    return toExternalRows(rows, requested);
  }

  /** Internal rows of {@code schema} as external rows. */
  public static List<Row> toExternalRows(List<InternalRow> rows, StructType schema) {
    Function1<Object, Object> toScala = CatalystTypeConverters.createToScalaConverter(schema);
    List<Row> out = new ArrayList<>(rows.size());
    for (InternalRow row : rows) {
      out.add((Row) toScala.apply(row));
    }
    return out;
  }
}
