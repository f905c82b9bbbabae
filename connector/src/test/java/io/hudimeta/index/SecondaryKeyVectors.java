package io.hudimeta.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.hudimeta.table.HudiTableException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs a {@code secondary_index_keys} conformance case (tests/conformance/secondary_index_keys.json) through
 * {@link SecondaryKeys}: the V1 entry keys of table version 8.
 */
public final class SecondaryKeyVectors {

  private SecondaryKeyVectors() {}

  public static Object keys(JsonNode in) {
    String fn = in.path("function").asText();
    return switch (fn) {
      case "escape" -> SecondaryKeys.escape(in.path("text").asText(), false);
      case "unescape" -> SecondaryKeys.unescape(in.path("text").asText());
      case "entryKey" -> SecondaryKeys.entryKey(in.path("value").asText(), in.path("recordKey").asText());
      case "valuePrefix" -> SecondaryKeys.valuePrefix(in.path("value").asText());
      case "splitKey" -> split(in.path("key").asText());
      default -> throw new IllegalArgumentException("unknown secondary_index_keys function " + fn);
    };
  }

  /** {value, recordKey} of an entry key, "error" when it has no unescaped '$'. */
  private static Object split(String key) {
    try {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("value", SecondaryKeys.value(key));
      out.put("recordKey", SecondaryKeys.recordKey(key));
      return out;
    } catch (HudiTableException e) {
      return "error";
    }
  }
}
