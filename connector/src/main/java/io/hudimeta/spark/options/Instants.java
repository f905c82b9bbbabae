package io.hudimeta.spark.options;

import java.util.regex.Pattern;

/** Instant times given by users, in the forms Hudi accepts, normalized to yyyyMMddHHmmssSSS. */
public final class Instants {

  private static final Pattern DIGITS = Pattern.compile("\\d{8}|\\d{14}|\\d{17}");
  /** "0", "000", Hudi's INIT_INSTANT_TS "00000000000000"...: before every instant, as Hudi's string compare has it. */
  private static final Pattern START = Pattern.compile("0+");
  static final String BEFORE_ALL = "00000000000000000";
  private static final Pattern DATE_TIME = Pattern.compile(
    "\\d{4}-\\d{2}-\\d{2}([ T]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?)?"
  );

  private Instants() {}

  public static String normalize(String value, String option) {
    String v = value.trim();
    if (START.matcher(v).matches()) {
      return BEFORE_ALL;
    }
    if (DIGITS.matcher(v).matches()) {
      return (v + "000000000").substring(0, 17);
    }
    if (DATE_TIME.matcher(v).matches()) {
      String digits = v.replaceAll("[^0-9]", "");
      if (v.contains(".")) {
        String frac = v.substring(v.indexOf('.') + 1);
        digits = digits.substring(0, 14) + (frac + "000").substring(0, 3);
      }
      return (digits + "000000000").substring(0, 17);
    }
    throw new IllegalArgumentException(
      "hudi-meta: " +
        option +
        "=" +
        value +
        " is not an instant; use " +
        "yyyyMMddHHmmssSSS, yyyy-MM-dd HH:mm:ss[.SSS], yyyy-MM-dd or 0 (from the start)"
    );
  }
}
