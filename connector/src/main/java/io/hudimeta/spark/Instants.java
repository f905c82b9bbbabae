package io.hudimeta.spark;

import java.util.regex.Pattern;

/** Instant times given by users, in the forms Hudi accepts, normalized to yyyyMMddHHmmssSSS. */
final class Instants {

  private static final Pattern DIGITS = Pattern.compile("\\d{8}|\\d{14}|\\d{17}");
  private static final Pattern DATE_TIME = Pattern.compile(
    "\\d{4}-\\d{2}-\\d{2}([ T]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?)?"
  );

  private Instants() {}

  static String normalize(String value, String option) {
    String v = value.trim();
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
        "yyyyMMddHHmmssSSS, yyyy-MM-dd HH:mm:ss[.SSS] or yyyy-MM-dd"
    );
  }
}
