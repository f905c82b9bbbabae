package io.hudimeta.spark.bridge;

import io.hudimeta.table.BucketIndex;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.api.java.UDF3;

/**
 * Spark SQL function hudi_bucket_id(record_key, hash_fields, num_buckets): the record's bucket
 * under Hudi's simple bucket index. Registered by the Python writer; run in the JVM because the
 * hash is Java's String/List hashCode, which a Python worker would compute a hundred times slower.
 */
public final class BucketIdFunction implements UDF3<String, String, Integer, Integer> {

  private static final long serialVersionUID = 1L;
  private transient String lastFields;
  private transient List<String> lastList;

  @Override
  public Integer call(String recordKey, String hashFields, Integer numBuckets) {
    if (recordKey == null || numBuckets == null || numBuckets <= 0) {
      return null;
    }
    return BucketIndex.bucketId(recordKey, fields(hashFields == null ? "" : hashFields), numBuckets);
  }

  private List<String> fields(String csv) {
    if (!csv.equals(lastFields)) {
      lastList = Arrays.asList(csv.split(","));
      lastFields = csv;
    }
    return lastList;
  }
}
