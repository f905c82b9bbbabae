package io.hudimeta.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Record keys of the metadata-table partitions (docs/format.md §7.5) and the key → file-group
 * mapping (§7.6).
 *
 * <p>Hash ids: the 64-bit id is XXH64 of the UTF-8 string with seed {@code 0xdabadaba} read as a
 * Java int (so sign-extended to {@code 0xFFFFFFFFDABADABA}), written as 8 big-endian bytes; the
 * 128-bit id is the MD5 digest. Both are rendered as padded standard Base64.
 */
public final class MetadataKeys {

  /** Seed of Hudi's 64-bit hash ids: the int 0xdabadaba, sign-extended. */
  public static final long HASH_SEED = (long) 0xdabadaba;
  /** Row of the partition list in the {@code files} partition. */
  public static final String ALL_PARTITIONS_KEY = "__all_partitions__";
  /** How a non-partitioned table's partition ("") is named inside the metadata table. */
  public static final String NON_PARTITIONED_ID = ".";

  private MetadataKeys() {}

  /** XXH64 of the UTF-8 bytes of {@code s} with Hudi's seed. */
  public static long xxhash64(String s) {
    return XXHash64.hash(s.getBytes(StandardCharsets.UTF_8), HASH_SEED);
  }

  /** Base64 of the 8 big-endian bytes of {@link #xxhash64} (12 characters). */
  public static String hashId64(String s) {
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(8).putLong(xxhash64(s)).array());
  }

  /** Base64 of the MD5 digest of the UTF-8 bytes of {@code s} (24 characters). */
  public static String hashId128(String s) {
    try {
      byte[] digest = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no MD5", e);
    }
  }

  /** The metadata-table name of a data partition: {@code "."} for the non-partitioned "". */
  public static String partitionId(String partitionPath) {
    return partitionPath == null || partitionPath.isEmpty() ? NON_PARTITIONED_ID : partitionPath;
  }

  /** Inverse of {@link #partitionId}. */
  public static String partitionPath(String partitionId) {
    return NON_PARTITIONED_ID.equals(partitionId) ? "" : partitionId;
  }

  /** {@code column_stats} key prefix of one column in one data partition (24 characters). */
  public static String columnStatsPrefix(String column, String partitionPath) {
    return hashId64(column) + hashId64(partitionId(partitionPath));
  }

  /** {@code column_stats} key of one column of one file (base or log file name, 48 characters). */
  public static String columnStatsKey(String column, String partitionPath, String fileName) {
    return columnStatsPrefix(column, partitionPath) + hashId128(fileName);
  }

  /** {@code partition_stats} key of one column of one data partition. */
  public static String partitionStatsKey(String column, String partitionPath) {
    return hashId64(column) + hashId64(partitionId(partitionPath));
  }

  /** {@code bloom_filters} key of one base file. */
  public static String bloomFilterKey(String partitionPath, String baseFileName) {
    return hashId64(partitionId(partitionPath)) + hashId128(baseFileName);
  }

  /**
   * Index of the file group holding {@code hashed} among {@code fileGroupCount} groups:
   * {@code abs(abs(h) % n)} with h the Java {@link String#hashCode} (record index: the record
   * key; secondary index V1: the whole key; V2: the escaped secondary value plus its {@code $}).
   */
  public static int fileGroupIndex(String hashed, int fileGroupCount) {
    return groupOf(hashed.hashCode(), fileGroupCount);
  }

  /**
   * {@link #fileGroupIndex(String, int)} of the string whose UTF-8 bytes these are: an ASCII string's chars are
   * its bytes, so its hash is taken from them; any other is decoded first.
   */
  public static int fileGroupIndex(byte[] utf8, int fileGroupCount) {
    int h = 0;
    for (byte b : utf8) {
      if (b < 0) {
        return fileGroupIndex(new String(utf8, StandardCharsets.UTF_8), fileGroupCount);
      }
      h = 31 * h + b;
    }
    return groupOf(h, fileGroupCount);
  }

  private static int groupOf(int hash, int fileGroupCount) {
    if (fileGroupCount <= 0) {
      throw new IllegalArgumentException("file group count must be positive, got " + fileGroupCount);
    }
    // Math.abs(Integer.MIN_VALUE) stays negative; the remainder then is too, hence the outer abs
    return Math.abs(Math.abs(hash) % fileGroupCount);
  }
}
