package io.hudimeta.index;

/** Test access to the record-index lookup's package-private parts. */
public final class IndexInspect {

  private IndexInspect() {}

  /** {@link ExecutorLookup#routes(int)}. */
  public static int[] routes(int groups) {
    return ExecutorLookup.routes(groups);
  }
}
