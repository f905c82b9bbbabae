package io.hudimeta.write;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.parquet.SparkToParquetSchemaConverter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One Hudi base file written from Spark rows with parquet-mr, in the Parquet schema Spark's own writer gives the
 * file's Spark schema ({@link SparkToParquetSchemaConverter}, standard layout, TIMESTAMP_MICROS). Input rows are
 * {@code [record key, partition path, data...]}; the five meta columns are written from them and from the
 * file's own constants (commit time, {@code <commit>_<task>_<n>} sequence numbers, file name), so no row is
 * copied or projected on the way. The footer gets Hudi's keys (min/max record key, the key bloom filter and its
 * type code) beside Spark's (its version and row schema), as Apache Hudi's row writer leaves them. Only flat
 * schemas of the types {@link #KINDS} names are taken (pyhudi.write.row_writer checks).
 */
final class RowBaseFile {

  private static final String[] UNDICTIONARIED = { "_hoodie_commit_seqno", "_hoodie_record_key" };
  /** The data types written, each with how a value is read from the row and handed to Parquet. */
  private static final Map<DataType, Integer> KINDS = Map.of(
    DataTypes.StringType,
    0,
    DataTypes.BinaryType,
    1,
    DataTypes.IntegerType,
    2,
    DataTypes.DateType,
    2,
    DataTypes.LongType,
    3,
    DataTypes.TimestampType,
    3,
    DataTypes.TimestampNTZType,
    3,
    DataTypes.FloatType,
    4,
    DataTypes.DoubleType,
    5,
    DataTypes.BooleanType,
    6
  );

  /** Settings shared by every file of a write. */
  record Settings(
    StructType schema,
    CompressionCodecName codec,
    long rowGroupBytes,
    int pageBytes,
    String bloomType,
    int bloomEntries,
    double bloomFpp,
    int bloomMaxEntries
  ) implements java.io.Serializable {}

  private final ParquetWriter<InternalRow> writer;
  private final KeyBloomFilter bloom;
  private final byte[] seqPrefix; // "<commit>_<task>_"
  private final Binary commitTime;
  private final Binary partitionPath;
  private final Binary fileName;
  private String minKey;
  private String maxKey;
  private long rows;
  private String serializedBloom; // made once, for the footer and the write stat

  RowBaseFile(Path path, Configuration conf, Settings s, String instant, int task, String partition, String name)
    throws IOException {
    for (StructField f : s.schema().fields()) {
      if (!KINDS.containsKey(f.dataType())) {
        throw new IllegalArgumentException("the row writer does not write " + f.dataType() + " (" + f.name() + ")");
      }
    }
    bloom = new KeyBloomFilter(s.bloomType(), s.bloomEntries(), s.bloomFpp(), s.bloomMaxEntries());
    seqPrefix = (instant + "_" + task + "_").getBytes(StandardCharsets.UTF_8);
    commitTime = Binary.fromConstantByteArray(instant.getBytes(StandardCharsets.UTF_8));
    partitionPath = Binary.fromConstantByteArray(partition.getBytes(StandardCharsets.UTF_8));
    fileName = Binary.fromConstantByteArray(name.getBytes(StandardCharsets.UTF_8));
    Configuration c = new Configuration(conf);
    // what Spark's Parquet data source sets before converting a schema
    c.set("spark.sql.parquet.writeLegacyFormat", "false");
    c.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS");
    c.set("spark.sql.parquet.fieldId.write.enabled", "false");
    c.set("spark.sql.parquet.variant.annotateLogicalType.enabled", "false"); // Spark 4.1+; no variants here
    MessageType parquetSchema = new SparkToParquetSchemaConverter(c).convert(s.schema());
    Builder b = new Builder(path, new Support(s.schema(), parquetSchema))
      .withConf(c)
      .withWriteMode(ParquetFileWriter.Mode.CREATE)
      .withCompressionCodec(s.codec())
      .withRowGroupSize(s.rowGroupBytes())
      .withPageSize(s.pageBytes())
      .withDictionaryEncoding(true);
    for (String column : UNDICTIONARIED) {
      b = b.withDictionaryEncoding(column, false); // never repeated: a dictionary is tried and dropped
    }
    writer = b.build();
  }

  /** Writes an input row: {@code [record key, partition path, data...]}. */
  void write(InternalRow row) throws IOException {
    UTF8String key = row.getUTF8String(0);
    if (key.getBaseObject() instanceof byte[] base) {
      bloom.add(base, (int) (key.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), key.numBytes());
    } else {
      byte[] bytes = key.getBytes();
      bloom.add(bytes, 0, bytes.length);
    }
    String k = key.toString();
    // Java's String order (UTF-16 units), as Hudi compares keys
    if (minKey == null || k.compareTo(minKey) < 0) {
      minKey = k;
    }
    if (maxKey == null || k.compareTo(maxKey) > 0) {
      maxKey = k;
    }
    writer.write(row);
    rows++;
  }

  long rows() {
    return rows;
  }

  /** Bytes written and buffered so far (what rolling files over by size checks). */
  long dataSize() {
    return writer.getDataSize();
  }

  void close() throws IOException {
    writer.close();
  }

  String minKey() {
    return minKey;
  }

  String maxKey() {
    return maxKey;
  }

  /** The footer's serialized bloom filter, once the file is closed (null for a file of no rows). */
  String bloom() {
    return serializedBloom;
  }

  private static Binary binary(UTF8String s) {
    if (s.getBaseObject() instanceof byte[] base) {
      return Binary.fromReusedByteArray(base, (int) (s.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), s.numBytes());
    }
    return Binary.fromReusedByteArray(s.getBytes());
  }

  /** Writes the meta columns and the input's data columns, in the file's Spark schema. */
  private final class Support extends WriteSupport<InternalRow> {

    private final StructType schema;
    private final MessageType parquetSchema;
    private final String[] names;
    private final int[] kinds;
    private final byte[] seq = new byte[seqPrefix.length + 20];
    private RecordConsumer out;

    Support(StructType schema, MessageType parquetSchema) {
      this.schema = schema;
      this.parquetSchema = parquetSchema;
      this.names = schema.fieldNames();
      this.kinds = new int[names.length];
      for (int i = 0; i < names.length; i++) {
        kinds[i] = KINDS.get(schema.fields()[i].dataType());
      }
      System.arraycopy(seqPrefix, 0, seq, 0, seqPrefix.length);
    }

    @Override
    public WriteContext init(Configuration configuration) {
      Map<String, String> meta = new LinkedHashMap<>();
      meta.put("org.apache.spark.version", org.apache.spark.package$.MODULE$.SPARK_VERSION_SHORT());
      meta.put("org.apache.spark.sql.parquet.row.metadata", schema.json());
      return new WriteContext(parquetSchema, meta);
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      out = recordConsumer;
    }

    @Override
    public void write(InternalRow row) {
      out.startMessage();
      field(0, commitTime);
      field(1, sequenceNumber());
      field(2, binary(row.getUTF8String(0)));
      field(3, partitionPath);
      field(4, fileName);
      for (int i = 5; i < names.length; i++) {
        int ordinal = i - 3; // the input's data start after its key and partition path
        if (!row.isNullAt(ordinal)) {
          out.startField(names[i], i);
          value(row, ordinal, kinds[i]);
          out.endField(names[i], i);
        }
      }
      out.endMessage();
    }

    private void field(int i, Binary value) {
      out.startField(names[i], i);
      out.addBinary(value);
      out.endField(names[i], i);
    }

    private void value(InternalRow row, int ordinal, int kind) {
      switch (kind) {
        case 0 -> out.addBinary(binary(row.getUTF8String(ordinal)));
        case 1 -> out.addBinary(Binary.fromReusedByteArray(row.getBinary(ordinal)));
        case 2 -> out.addInteger(row.getInt(ordinal));
        case 3 -> out.addLong(row.getLong(ordinal));
        case 4 -> out.addFloat(row.getFloat(ordinal));
        case 5 -> out.addDouble(row.getDouble(ordinal));
        default -> out.addBoolean(row.getBoolean(ordinal));
      }
    }

    /** {@code <commit>_<task>_<n>}, n numbering this file's rows (Hudi's write handles number per file). */
    private Binary sequenceNumber() {
      int end = seq.length;
      long n = rows;
      do {
        seq[--end] = (byte) ('0' + (n % 10));
        n /= 10;
      } while (n > 0);
      int digits = seq.length - end;
      System.arraycopy(seq, end, seq, seqPrefix.length, digits);
      return Binary.fromReusedByteArray(seq, 0, seqPrefix.length + digits);
    }

    @Override
    public FinalizedWriteContext finalizeWrite() {
      Map<String, String> keys = new LinkedHashMap<>();
      if (rows > 0) {
        serializedBloom = bloom.serialize();
        keys.put("hoodie_min_record_key", minKey);
        keys.put("org.apache.hudi.bloomfilter", serializedBloom);
        keys.put("hoodie_max_record_key", maxKey);
        keys.put("hoodie_bloom_filter_type_code", bloom.type());
      }
      return new FinalizedWriteContext(keys);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<InternalRow, Builder> {

    private final WriteSupport<InternalRow> support;

    Builder(Path path, WriteSupport<InternalRow> support) {
      super(path);
      this.support = support;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<InternalRow> getWriteSupport(Configuration conf) {
      return support;
    }
  }
}
