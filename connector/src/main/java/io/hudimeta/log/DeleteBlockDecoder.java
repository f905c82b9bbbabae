package io.hudimeta.log;

import io.hudimeta.avro.AvroBounds;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Content of a delete block (docs/format.md §2.4): int32 content version (3), int32 payload length,
 * then the Avro binary of a {@code HoodieDeleteRecordList}. The schema is built here rather than
 * taken from the SCHEMA header, which holds the table schema (and is absent on metadata-table
 * bootstrap blocks).
 */
final class DeleteBlockDecoder {

  private static final int CONTENT_VERSION = 3;
  private static final String NAMESPACE = "org.apache.hudi.avro.model";
  /** Scale of Hudi's DecimalWrapper value (decimal(30,15)). */
  private static final int WRAPPED_DECIMAL_SCALE = 15;
  static final Schema SCHEMA = deleteRecordListSchema();

  private DeleteBlockDecoder() {}

  static List<DeleteRecord> decode(LogBlock block) {
    ByteBuffer buf = ByteBuffer.wrap(block.content());
    int version = AvroBlockDecoder.readInt(block, buf, "content version");
    if (version != CONTENT_VERSION) {
      // Versions 1 and 2 were Java/Kryo-serialized key arrays, which only a JVM Hudi can read.
      throw new LogFormatException(
        block + " has delete content version " + version + "; only version " + CONTENT_VERSION + " (Avro) is supported"
      );
    }
    int length = AvroBlockDecoder.readInt(block, buf, "payload length");
    if (length < 0 || length != buf.remaining()) {
      throw new LogFormatException(
        block + " claims a " + length + "-byte delete payload but " + buf.remaining() + " bytes remain"
      );
    }
    GenericRecord list = decodePayload(block, buf.array(), buf.position(), length);
    List<?> entries = (List<?>) list.get("deleteRecordList");
    List<DeleteRecord> out = new ArrayList<>(entries.size());
    for (Object entry : entries) {
      GenericRecord r = (GenericRecord) entry;
      out.add(
        new DeleteRecord(
          string(r.get("recordKey")),
          string(r.get("partitionPath")),
          unwrap((GenericRecord) r.get("orderingVal"))
        )
      );
    }
    return out;
  }

  private static GenericRecord decodePayload(LogBlock block, byte[] data, int offset, int length) {
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, offset, length, null);
    try {
      new AvroBounds.Input(data, offset, length).skipDatum(SCHEMA); // lengths in the data, before Avro allocates
      GenericRecord record = new GenericDatumReader<GenericRecord>(SCHEMA).read(null, decoder);
      if (decoder.isEnd()) {
        return record;
      }
    } catch (IOException | RuntimeException e) {
      throw new LogFormatException(
        block +
          " does not hold a HoodieDeleteRecordList (an ordering " +
          "value of a type newer than Hudi 1.0, e.g. ArrayWrapper, is not supported): " +
          e,
        e
      );
    }
    throw new LogFormatException(block + " has bytes after its HoodieDeleteRecordList");
  }

  private static String string(Object value) {
    return value == null ? null : value.toString();
  }

  /** The plain Java value inside one of Hudi's single-field wrapper records. */
  private static Object unwrap(GenericRecord wrapper) {
    if (wrapper == null) {
      return null;
    }
    Object value = wrapper.get("value");
    switch (wrapper.getSchema().getName()) {
      case "BytesWrapper":
        return bytes((ByteBuffer) value);
      case "StringWrapper":
        return value.toString();
      case "DateWrapper":
        return LocalDate.ofEpochDay((Integer) value);
      case "DecimalWrapper":
        return new BigDecimal(new BigInteger(bytes((ByteBuffer) value)), WRAPPED_DECIMAL_SCALE);
      case "TimestampMicrosWrapper":
        return Instant.EPOCH.plus((Long) value, ChronoUnit.MICROS);
      default: // boolean, int, long, float, double, time-micros (long): already plain
        return value;
    }
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  /**
   * HoodieDeleteRecordList as Hudi 1.0 writes it: the orderingVal union branches are, in order,
   * null and the wrapper records Boolean, Int, Long, Float, Double, Bytes, String, Date, Decimal,
   * TimeMicros, TimestampMicros (each {value: type}); the branch index is what is on disk.
   */
  private static Schema deleteRecordListSchema() {
    Schema ordering = Schema.createUnion(
      Schema.create(Schema.Type.NULL),
      wrapper("BooleanWrapper", Schema.create(Schema.Type.BOOLEAN)),
      wrapper("IntWrapper", Schema.create(Schema.Type.INT)),
      wrapper("LongWrapper", Schema.create(Schema.Type.LONG)),
      wrapper("FloatWrapper", Schema.create(Schema.Type.FLOAT)),
      wrapper("DoubleWrapper", Schema.create(Schema.Type.DOUBLE)),
      wrapper("BytesWrapper", Schema.create(Schema.Type.BYTES)),
      wrapper("StringWrapper", Schema.create(Schema.Type.STRING)),
      wrapper("DateWrapper", Schema.create(Schema.Type.INT)),
      wrapper(
        "DecimalWrapper",
        LogicalTypes.decimal(30, WRAPPED_DECIMAL_SCALE).addToSchema(Schema.create(Schema.Type.BYTES))
      ),
      wrapper("TimeMicrosWrapper", LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG))),
      wrapper("TimestampMicrosWrapper", Schema.create(Schema.Type.LONG))
    );
    Schema nullableString = SchemaBuilder.unionOf().nullType().and().stringType().endUnion();
    Schema entry = SchemaBuilder.record("HoodieDeleteRecord")
      .namespace(NAMESPACE)
      .fields()
      .name("recordKey")
      .type(nullableString)
      .withDefault(null)
      .name("partitionPath")
      .type(nullableString)
      .withDefault(null)
      .name("orderingVal")
      .type(ordering)
      .withDefault(null)
      .endRecord();
    return SchemaBuilder.record("HoodieDeleteRecordList")
      .namespace(NAMESPACE)
      .fields()
      .name("deleteRecordList")
      .type(Schema.createArray(entry))
      .noDefault()
      .endRecord();
  }

  private static Schema wrapper(String name, Schema valueType) {
    return SchemaBuilder.record(name)
      .namespace(NAMESPACE)
      .fields()
      .name("value")
      .type(valueType)
      .noDefault()
      .endRecord();
  }
}
