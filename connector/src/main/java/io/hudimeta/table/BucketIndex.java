package io.hudimeta.table;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Apache Hudi's simple bucket index: a record's bucket is a hash of its key fields modulo the
 * number of buckets of its partition, and a bucket's file group id starts with the bucket number
 * (8 digits). Writers of the same table must agree on it to the bit, so the hash is Java's
 * {@code List<String>.hashCode()} over the values taken out of the record key, as Hudi has it.
 */
public final class BucketIndex {

  private static final String NULL_PLACEHOLDER = "__null__";
  private static final String EMPTY_PLACEHOLDER = "__empty__";

  private BucketIndex() {}

  public static int bucketId(String recordKey, List<String> hashFields, int numBuckets) {
    return (hashKeys(recordKey, hashFields).hashCode() & Integer.MAX_VALUE) % numBuckets;
  }

  /**
   * The values hashed: the whole key when it is a plain value (no "field:value" pairs), else the
   * values of the pairs whose field is a hash field (all pairs when none is given). A value may
   * itself hold ':' or ',' (timestamps): a pair ends at the last ',' before the next field's ':'.
   */
  static List<String> hashKeys(String recordKey, List<String> fields) {
    if (recordKey.indexOf(',') < 0 || recordKey.indexOf(':') < 0) {
      return Arrays.asList(recordKey);
    }
    boolean allFields = fields.isEmpty() || (fields.size() == 1 && fields.get(0).isEmpty());
    List<String> values = new ArrayList<>();
    int pos = 0;
    while (pos < recordKey.length()) {
      int sep = recordKey.indexOf(':', pos);
      if (sep < 0) {
        break;
      }
      String field = recordKey.substring(pos, sep);
      int end = pairEnd(recordKey, sep);
      if (allFields || fields.contains(field)) {
        values.add(decode(recordKey.substring(sep + 1, end)));
      }
      pos = end + 1;
    }
    return values.isEmpty() ? Arrays.asList(recordKey) : values;
  }

  /** Index of the ',' closing the pair whose ':' is at `sep` (the key's length for the last pair). */
  private static int pairEnd(String key, int sep) {
    int next = key.indexOf(':', sep + 1);
    if (next < 0) {
      return key.length();
    }
    int comma = key.lastIndexOf(',', next);
    while (comma < sep && next > 0) {
      // a ':' inside this value: look past it
      next = key.indexOf(':', next + 1);
      comma = key.lastIndexOf(',', next);
    }
    return comma > 0 ? comma : key.length();
  }

  private static String decode(String value) {
    if (value.equals(NULL_PLACEHOLDER)) {
      return null;
    }
    return value.equals(EMPTY_PLACEHOLDER) ? "" : value;
  }
}
