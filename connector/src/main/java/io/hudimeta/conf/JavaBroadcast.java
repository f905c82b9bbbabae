package io.hudimeta.conf;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.io.UncheckedIOException;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * A value broadcast as its Java serialization. Spark writes broadcasts and task results with
 * {@code spark.serializer}, and Kryo, which Hudi's setup guides ask for, cannot write a Java record ("can't
 * get field offset on a record class") nor rebuild the JDK's immutable collections; bytes pass any serializer.
 */
public final class JavaBroadcast<T extends Serializable> implements Serializable {

  private static final long serialVersionUID = 1L;
  private final Broadcast<byte[]> bytes;
  private transient T value;

  private JavaBroadcast(Broadcast<byte[]> bytes) {
    this.bytes = bytes;
  }

  public static <T extends Serializable> JavaBroadcast<T> of(SparkContext sc, T value) {
    return new JavaBroadcast<>(JavaSparkContext.fromSparkContext(sc).broadcast(serialize(value)));
  }

  /** The value, deserialized once for each copy of this handle (a task has its own). */
  public T value() {
    if (value == null) {
      value = deserialize(bytes.value());
    }
    return value;
  }

  private static byte[] serialize(Serializable value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream objects = new ObjectOutputStream(out)) {
      objects.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize " + value.getClass().getName(), e);
    }
    return out.toByteArray();
  }

  @SuppressWarnings("unchecked")
  private static <T> T deserialize(byte[] bytes) {
    try (ObjectInputStream objects = new TaskObjects(new ByteArrayInputStream(bytes))) {
      return (T) objects.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalStateException("cannot deserialize a value sent by the driver or a task", e);
    }
  }

  /** Classes resolved by the task's loader first: on an executor the connector may come with the job's jars. */
  private static final class TaskObjects extends ObjectInputStream {

    TaskObjects(ByteArrayInputStream in) throws IOException {
      super(in);
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      if (loader != null) {
        try {
          return Class.forName(desc.getName(), false, loader);
        } catch (ClassNotFoundException e) {
          // a JDK or system class: the default rule finds it
        }
      }
      return super.resolveClass(desc);
    }
  }
}
