package io.hudimeta.log;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.spark.internal.config.ConfigEntry;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.internal.LegacyBehaviorPolicy;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Rows of a Parquet data block (docs/format.md §2.2: the content is one complete Parquet file).
 * Reads straight from the block bytes with Spark's own row-based Parquet read support, so type
 * mapping, nested types, column pruning and missing columns behave exactly as in Spark scans.
 */
final class ParquetBlockReader {

  /** Settings Spark's Parquet schema converter requires to be present in the Configuration. */
  private static final List<ConfigEntry<?>> REQUIRED_SQL_SETTINGS = List.of(
    SQLConf.PARQUET_BINARY_AS_STRING(),
    SQLConf.PARQUET_INT96_AS_TIMESTAMP(),
    SQLConf.CASE_SENSITIVE(),
    SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED(),
    SQLConf.LEGACY_PARQUET_NANOS_AS_LONG()
  );

  private ParquetBlockReader() {}

  static List<InternalRow> read(byte[] parquetFile, StructType requested, String description) {
    List<InternalRow> rows = new ArrayList<>();
    try (
      ParquetReader<InternalRow> reader = new Builder(new BytesInputFile(parquetFile), readSupport())
        .withConf(conf(requested))
        .build()
    ) {
      for (InternalRow row = reader.read(); row != null; row = reader.read()) {
        rows.add(row.copy()); // the materializer reuses one mutable row
      }
    } catch (IOException | RuntimeException e) {
      throw new LogFormatException("cannot read the Parquet content of " + description + ": " + e, e);
    }
    return rows;
  }

  private static ReadSupport<InternalRow> readSupport() {
    // Hudi's Parquet blocks come from Spark 3+ writers, which use the proleptic calendar.
    RebaseDateTime.RebaseSpec corrected = new RebaseDateTime.RebaseSpec(
      LegacyBehaviorPolicy.CORRECTED(),
      Option.empty()
    );
    return new ParquetReadSupport(Option.empty(), false, corrected, corrected);
  }

  private static Configuration conf(StructType requested) {
    Configuration conf = new Configuration(false);
    conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA(), requested.json());
    SQLConf session = SQLConf.get();
    for (ConfigEntry<?> entry : REQUIRED_SQL_SETTINGS) {
      conf.set(entry.key(), session.getConfString(entry.key(), entry.defaultValueString()));
    }
    return conf;
  }

  private static final class Builder extends ParquetReader.Builder<InternalRow> {

    private final ReadSupport<InternalRow> readSupport;

    Builder(InputFile file, ReadSupport<InternalRow> readSupport) {
      super(file);
      this.readSupport = readSupport;
    }

    @Override
    protected ReadSupport<InternalRow> getReadSupport() {
      return readSupport;
    }
  }

  /** A Parquet file held in memory. */
  private static final class BytesInputFile implements InputFile {

    private final byte[] data;

    BytesInputFile(byte[] data) {
      this.data = data;
    }

    @Override
    public long getLength() {
      return data.length;
    }

    @Override
    public SeekableInputStream newStream() {
      SeekableBytes in = new SeekableBytes(data);
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() {
          return in.position();
        }

        @Override
        public void seek(long newPos) {
          in.seek(newPos);
        }
      };
    }
  }

  /** ByteArrayInputStream with random access (its cursor field is protected, not private). */
  private static final class SeekableBytes extends ByteArrayInputStream {

    SeekableBytes(byte[] data) {
      super(data);
    }

    long position() {
      return pos;
    }

    void seek(long newPos) {
      if (newPos < 0 || newPos > count) {
        throw new IllegalArgumentException("seek to " + newPos + " outside 0.." + count);
      }
      pos = (int) newPos;
    }
  }
}
