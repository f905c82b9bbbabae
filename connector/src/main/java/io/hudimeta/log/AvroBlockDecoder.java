package io.hudimeta.log;

import io.hudimeta.avro.AvroBounds;
import io.hudimeta.avro.AvroRowConverter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Content of an Avro data block (docs/format.md §2.1): int32 content version (3), int32 record
 * count, then per record an int32 length and the record's Avro binary under the SCHEMA header.
 */
final class AvroBlockDecoder {

  /** The content version every known writer uses; older ones were never seen on disk. */
  private static final int CONTENT_VERSION = 3;

  private AvroBlockDecoder() {}

  static List<GenericRecord> records(LogBlock block, Schema readerSchema) {
    return decode(block, block.writerSchema(), readerSchema);
  }

  static List<InternalRow> rows(LogBlock block, StructType requested) {
    Schema writer = block.writerSchema();
    AvroRowConverter converter = new AvroRowConverter(writer, requested);
    List<InternalRow> out = new ArrayList<>();
    for (GenericRecord record : decode(block, writer, null)) {
      try {
        out.add(converter.convert(record));
      } catch (RuntimeException e) {
        // a value its own schema allows but Spark cannot hold, e.g. a decimal
        throw new LogFormatException("record " + out.size() + " of " + block + " does not convert to a row: " + e, e);
      }
    }
    return out;
  }

  private static List<GenericRecord> decode(LogBlock block, Schema writer, Schema readerSchema) {
    GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(
      writer,
      readerSchema == null ? writer : readerSchema
    );
    ByteBuffer buf = ByteBuffer.wrap(block.content());
    int count = readHeader(block, buf);
    List<GenericRecord> out = new ArrayList<>(count);
    BinaryDecoder decoder = null;
    for (int i = 0; i < count; i++) {
      int length = readInt(block, buf, "length of record " + i);
      if (length < 0 || length > buf.remaining()) {
        throw new LogFormatException(
          "record " + i + " of " + block + " claims " + length + " bytes but only " + buf.remaining() + " remain"
        );
      }
      decoder = DecoderFactory.get().binaryDecoder(buf.array(), buf.position(), length, decoder);
      out.add(decodeOne(block, writer, reader, decoder, buf.position(), length, i));
      buf.position(buf.position() + length);
    }
    if (buf.hasRemaining()) {
      throw new LogFormatException(block + " has " + buf.remaining() + " bytes after its last record");
    }
    return out;
  }

  private static int readHeader(LogBlock block, ByteBuffer buf) {
    int version = readInt(block, buf, "content version");
    if (version != CONTENT_VERSION) {
      throw new LogFormatException(
        block + " has Avro content version " + version + "; only version " + CONTENT_VERSION + " is supported"
      );
    }
    int count = readInt(block, buf, "record count");
    if (count < 0 || count > buf.remaining() / 4) {
      throw new LogFormatException(block + " claims an impossible record count " + count);
    }
    return count;
  }

  private static GenericRecord decodeOne(
    LogBlock block,
    Schema writer,
    GenericDatumReader<GenericRecord> reader,
    BinaryDecoder decoder,
    int offset,
    int length,
    int index
  ) {
    GenericRecord record;
    boolean consumedAll;
    try {
      // Avro allocates strings and arrays from lengths in the data: check them against the bytes first
      new AvroBounds.Input(block.content(), offset, length).skipDatum(writer);
      record = reader.read(null, decoder);
      consumedAll = decoder.isEnd();
    } catch (IOException | RuntimeException e) {
      throw new LogFormatException(
        "record " + index + " of " + block + " does not decode under its SCHEMA header: " + e,
        e
      );
    }
    if (!consumedAll) {
      throw new LogFormatException("record " + index + " of " + block + " is longer than its SCHEMA header reads");
    }
    return record;
  }

  static int readInt(LogBlock block, ByteBuffer buf, String what) {
    if (buf.remaining() < 4) {
      throw new LogFormatException(block + " ends before its " + what);
    }
    return buf.getInt();
  }
}
