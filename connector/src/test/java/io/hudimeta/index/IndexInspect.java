package io.hudimeta.index;

/** Test access to the record-index lookup's package-private parts. */
public final class IndexInspect {

  private IndexInspect() {}

  /** {@link ExecutorLookup#routes(int, int)}. */
  public static int[] routes(int groups, int tasks) {
    return ExecutorLookup.routes(groups, tasks);
  }
}
