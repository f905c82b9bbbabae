package io.hudimeta.spark.merge;

import java.util.Arrays;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Record keys by base-file row position: an open-addressing map from non-negative longs, so a positional merge
 * looks a base row up without boxing its position.
 */
final class PositionKeys {

  private static final long FREE = -1; // positions are never negative

  private long[] positions = newSlots(16);
  private UTF8String[] keys = new UTF8String[16];
  private int size;

  void put(long position, UTF8String key) {
    if (2 * (size + 1) > positions.length) {
      grow();
    }
    int i = slot(positions, position);
    if (positions[i] == FREE) {
      positions[i] = position;
      size++;
    }
    keys[i] = key;
  }

  /** The key at {@code position}, or null. */
  UTF8String get(long position) {
    return keys[slot(positions, position)];
  }

  /** Where {@code position} is, or the free slot it would take. */
  private static int slot(long[] positions, long position) {
    int mask = positions.length - 1;
    long mixed = position * 0x9E3779B97F4A7C15L; // Fibonacci hashing: consecutive positions spread out
    int i = (int) (mixed ^ (mixed >>> 32)) & mask;
    while (positions[i] != FREE && positions[i] != position) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void grow() {
    long[] oldPositions = positions;
    UTF8String[] oldKeys = keys;
    positions = newSlots(oldPositions.length * 2);
    keys = new UTF8String[oldPositions.length * 2];
    for (int j = 0; j < oldPositions.length; j++) {
      if (oldPositions[j] != FREE) {
        int i = slot(positions, oldPositions[j]);
        positions[i] = oldPositions[j];
        keys[i] = oldKeys[j];
      }
    }
  }

  private static long[] newSlots(int n) {
    long[] slots = new long[n];
    Arrays.fill(slots, FREE);
    return slots;
  }
}
