package io.hudimeta.spark.procedures;

import io.hudimeta.HudiException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;

/** The arguments of one call, by parameter name (Spark has filled in defaults and cast the values). */
public final class Args {

  private final Map<String, String> values = new LinkedHashMap<>();

  private Args() {}

  /** Reads {@code input} (one value per parameter, in order) and checks the required ones are there. */
  static Args of(ProcedureSpec spec, InternalRow input) {
    Args args = new Args();
    for (int i = 0; i < spec.params().size(); i++) {
      Param p = spec.params().get(i);
      Object v = input.isNullAt(i) ? null : input.get(i, p.type());
      if (v == null && p.required()) {
        throw new HudiException(
          "CALL " + spec.name() + ": argument " + p.name() + " is required (" + Registry.signature(spec) + ")"
        );
      }
      args.values.put(p.name(), v == null ? null : v.toString()); // UTF8String, numbers, booleans
    }
    return args;
  }

  public String string(String name) {
    return values.get(name);
  }

  public boolean flag(String name) {
    return Boolean.parseBoolean(string(name));
  }

  public int integer(String name, int otherwise) {
    String v = string(name);
    return v == null ? otherwise : Integer.parseInt(v);
  }

  /** The given (or defaulted) arguments other than the table, as text: what pyhudi receives. */
  Map<String, String> forPython() {
    Map<String, String> out = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (v != null && !k.equals("table") && !k.equals("path")) {
        out.put(k, v);
      }
    });
    return out;
  }
}
