package io.hudimeta.spark.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Type promotion for base files written before a column changed type (Hudi allows widening, e.g.
 * long -> string): such a file is read with its own column types, then values are converted to the
 * table's types, as Hudi's schema-on-read does.
 */
final class FileTypes {

  private FileTypes() {}

  static StructType footerSchema(String file, Configuration conf) {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), conf))) {
      return new ParquetToSparkSchemaConverter(conf).convert(reader.getFooter().getFileMetaData().getSchema());
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot read the footer of " + file, e);
    }
  }

  /** The read schema with the file's own types for the drifted columns it holds. */
  static StructType fileReadSchema(StructType read, StructType file, Set<String> drifted) {
    StructField[] out = read.fields().clone();
    for (int i = 0; i < out.length; i++) {
      String name = out[i].name();
      if (drifted.contains(name) && file.getFieldIndex(name).isDefined()) {
        out[i] = DataTypes.createStructField(name, file.apply(name).dataType(), true);
      }
    }
    return DataTypes.createStructType(out);
  }

  /** A broadcast-shaped holder for a configuration made on an executor (no broadcast possible there). */
  static Broadcast<SerializableConfiguration> local(Configuration conf) {
    SerializableConfiguration value = new SerializableConfiguration(conf);
    return new Broadcast<>(-1L, scala.reflect.ClassTag$.MODULE$.apply(SerializableConfiguration.class)) {
      @Override
      public SerializableConfiguration getValue() {
        return value;
      }

      @Override
      public void doUnpersist(boolean blocking) {}

      @Override
      public void doDestroy(boolean blocking) {}
    };
  }

  /** Rows read with the file's types, converted to the table's. */
  static PartitionReader<InternalRow> converting(PartitionReader<InternalRow> in, StructType from, StructType to) {
    StructField[] src = from.fields();
    StructField[] dst = to.fields();
    return new PartitionReader<>() {
      @Override
      public boolean next() throws IOException {
        return in.next();
      }

      @Override
      public InternalRow get() {
        InternalRow row = in.get();
        Object[] values = new Object[dst.length];
        for (int i = 0; i < dst.length; i++) {
          Object v = row.isNullAt(i) ? null : row.get(i, src[i].dataType());
          values[i] = convert(v, src[i].dataType(), dst[i].dataType(), dst[i].name());
        }
        return new GenericInternalRow(values).copy();
      }

      @Override
      public void close() throws IOException {
        in.close();
      }
    };
  }

  private static Object convert(Object v, DataType from, DataType to, String column) {
    if (v == null || from.equals(to)) {
      return v;
    }
    if (to == DataTypes.StringType) {
      return UTF8String.fromString(v.toString());
    }
    if (to == DataTypes.LongType && v instanceof Number) {
      return ((Number) v).longValue();
    }
    if (to == DataTypes.DoubleType && v instanceof Number) {
      return ((Number) v).doubleValue();
    }
    if (to == DataTypes.FloatType && v instanceof Number) {
      return ((Number) v).floatValue();
    }
    throw new UnsupportedOperationException(
      "hudi-meta: column " +
        column +
        " is " +
        from.simpleString() +
        " in an older file but " +
        to.simpleString() +
        " in the table schema; this type change is not supported"
    );
  }
}
