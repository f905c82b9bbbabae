package io.hudimeta.spark.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.spark.sql.execution.QueryExecutionException;

/**
 * pyhudi's errors as the Python caller should see them. A failure of the Python write client reaches
 * the JVM as py4j's exception holding the whole Python traceback, which pyspark would hand the user as a
 * Py4JJavaError of several thousand characters. pyhudi's bridge ends that traceback with one marked line
 * (the error's kind, class and message as JSON); this class raises the message alone as an exception
 * pyspark converts into a Python one: IllegalArgumentException for bad input,
 * UnsupportedOperationException for what pyhudi does not do yet, QueryExecutionException otherwise.
 * The py4j exception stays the cause (the JVM stack trace of spark.sql.pyspark.jvmStacktrace.enabled).
 */
final class CallbackErrors {

  static final String MARKER = "pyhudi-callback-error:"; // pyhudi.spark.bridge.ERROR_MARKER
  private static final ObjectMapper JSON = new ObjectMapper();

  private CallbackErrors() {}

  /** Runs a call into pyhudi, raising its failure as its message alone. */
  static <T> T call(Supplier<T> body) {
    try {
      return body.get();
    } catch (RuntimeException e) {
      throw translated(e);
    }
  }

  static void run(Runnable body) {
    call(() -> {
      body.run();
      return null;
    });
  }

  /** The exception to raise for {@code e}: {@code e} itself when it carries no marked line. */
  static RuntimeException translated(RuntimeException e) {
    JsonNode error = marked(e.getMessage());
    if (error == null) {
      return e;
    }
    String message = error.path("message").asText();
    return switch (error.path("kind").asText()) {
      case "argument" -> new IllegalArgumentException(message, e);
      case "unsupported" -> {
        UnsupportedOperationException u = new UnsupportedOperationException(message);
        u.initCause(e);
        yield u;
      }
      default -> sneaky(new QueryExecutionException(message, e));
    };
  }

  private static JsonNode marked(String text) {
    int at = text == null ? -1 : text.lastIndexOf(MARKER);
    if (at < 0) {
      return null;
    }
    int end = text.indexOf('\n', at);
    String line = text.substring(at + MARKER.length(), end < 0 ? text.length() : end);
    try {
      return JSON.readTree(line);
    } catch (IOException notOurs) {
      return null;
    }
  }

  /** QueryExecutionException is checked (a Scala class); raised from interface methods that declare none. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }
}
