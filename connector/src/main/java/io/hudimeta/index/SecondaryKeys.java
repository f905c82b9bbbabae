package io.hudimeta.index;

import io.hudimeta.table.HudiTableException;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Entry keys of a secondary-index partition (docs/format.md §7.5): {@code escape(value) + "$" +
 * escape(recordKey)}. Escaping puts {@code \} before {@code \} and {@code $}, so the first unescaped
 * {@code $} separates the value from the record key and all entries of one value share the prefix
 * {@code escape(value) + "$"}: a prefix scan finds them. Hudi 1.1 also escapes U+0000, because there a
 * lone U+0000 stands for a null value; Hudi 1.0 writes U+0000 as it is.
 */
public final class SecondaryKeys {

  public static final char SEPARATOR = '$';
  public static final char ESCAPE = '\\';
  /** The value part of the entries of rows whose value is null (Hudi 1.1). */
  public static final String NULL_VALUE = "\0";

  private SecondaryKeys() {}

  /** {@code text} with {@code \} before each {@code \} and {@code $} (and U+0000 when {@code escapeNul}). */
  public static String escape(String text, boolean escapeNul) {
    StringBuilder out = new StringBuilder(text.length() + 4);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == ESCAPE || c == SEPARATOR || (escapeNul && c == '\0')) {
        out.append(ESCAPE);
      }
      out.append(c);
    }
    return out.toString();
  }

  /**
   * Inverse of {@link #escape}: an escape character stands for the character after it, a lone one at the end
   * for nothing (Apache Hudi's {@code SecondaryIndexKeyUtils.unescapeSpecialChars}).
   */
  public static String unescape(String escaped) {
    StringBuilder out = new StringBuilder(escaped.length());
    for (int i = 0; i < escaped.length(); i++) {
      char c = escaped.charAt(i);
      if (c == ESCAPE && ++i == escaped.length()) {
        break;
      }
      out.append(escaped.charAt(i));
    }
    return out.toString();
  }

  /** The entry key of record {@code recordKey} under value {@code text}, as Hudi 1.0 (V1) spells it. */
  public static String entryKey(String text, String recordKey) {
    return escape(text, false) + SEPARATOR + escape(recordKey, false);
  }

  /** What every V1 entry of value {@code text} starts with: its entry key with an empty record key. */
  public static String valuePrefix(String text) {
    return escape(text, false) + SEPARATOR;
  }

  /**
   * The prefixes the entries of value {@code text} start with ({@code null}: the null value). Text holding
   * U+0000 has two, as Hudi 1.0 and 1.1 spell it differently; neither spelling can be another value's, since
   * 1.0 never writes {@code \} before U+0000 and 1.1 never writes U+0000 unescaped inside a value.
   */
  public static Set<String> valuePrefixes(String text) {
    Set<String> out = new LinkedHashSet<>();
    if (text == null) {
      out.add(NULL_VALUE + SEPARATOR);
      return out;
    }
    out.add(valuePrefix(text));
    out.add(escape(text, true) + SEPARATOR);
    return out;
  }

  /** The escaped value of an entry key with its {@code $}: the prefix the entry was found by. */
  public static String prefixOf(String key) {
    return key.substring(0, separator(key) + 1);
  }

  /** The value (its text) of a V1 entry key. */
  public static String value(String key) {
    return unescape(key.substring(0, separator(key)));
  }

  /** The record key of an entry key. */
  public static String recordKey(String key) {
    return unescape(key.substring(separator(key) + 1));
  }

  /** Position of the first unescaped {@code $}. */
  private static int separator(String key) {
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c == ESCAPE) {
        i++;
      } else if (c == SEPARATOR) {
        return i;
      }
    }
    throw new HudiTableException("hudi-meta: not a secondary-index key (no unescaped '$'): " + key);
  }
}
