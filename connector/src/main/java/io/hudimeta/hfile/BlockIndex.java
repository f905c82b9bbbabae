package io.hudimeta.hfile;

import java.io.IOException;

/**
 * The multi-level data block index. The root node comes from the load-on-open section; leaf and
 * intermediate nodes are loaded on demand through the loader (which caches them).
 */
final class BlockIndex {

  /** Loads a non-root index node; must not return an empty node. */
  interface NodeLoader {
    IndexNode load(long offset, int onDiskSize, BlockType type) throws IOException;
  }

  private final IndexNode root;
  private final int levels;
  private final NodeLoader loader;

  BlockIndex(IndexNode root, int levels, NodeLoader loader) {
    this.root = root;
    this.levels = levels;
    this.loader = loader;
  }

  /** Position on the first data block, or null for an empty file. */
  Position first() throws IOException {
    return root.size() == 0 ? null : new Position(null);
  }

  /** Position on the data block where a search for row must start, or null for an empty file. */
  Position seek(byte[] row) throws IOException {
    return root.size() == 0 ? null : new Position(row);
  }

  /** A data block, identified by the path of index slots leading to it; advances in file order. */
  final class Position {

    private final IndexNode[] nodes = new IndexNode[levels];
    private final int[] slots = new int[levels];

    /** Descends from the root; target null means "leftmost". */
    private Position(byte[] target) throws IOException {
      nodes[0] = root;
      slots[0] = target == null ? 0 : root.startSlot(target);
      descend(1, target);
    }

    long blockOffset() {
      return nodes[levels - 1].offset(slots[levels - 1]);
    }

    int blockSize() {
      return nodes[levels - 1].onDiskSize(slots[levels - 1]);
    }

    /** Row of the data block's index key: a lower bound of its rows. */
    byte[] blockLowerRow() {
      return nodes[levels - 1].key(slots[levels - 1]);
    }

    /** Row of the next entry's key in the same index block (an upper bound of this block's rows), or null. */
    byte[] blockUpperRow() {
      IndexNode leaf = nodes[levels - 1];
      int slot = slots[levels - 1];
      return slot + 1 < leaf.size() ? leaf.key(slot + 1) : null;
    }

    /** Moves to the next data block; false after the last one. */
    boolean advance() throws IOException {
      int depth = levels - 1;
      while (depth >= 0 && slots[depth] + 1 >= nodes[depth].size()) {
        depth--;
      }
      if (depth < 0) {
        return false;
      }
      slots[depth]++;
      descend(depth + 1, null);
      return true;
    }

    private void descend(int fromDepth, byte[] target) throws IOException {
      for (int d = fromDepth; d < levels; d++) {
        IndexNode parent = nodes[d - 1];
        BlockType type = d == levels - 1 ? BlockType.LEAF_INDEX : BlockType.INTERMEDIATE_INDEX;
        nodes[d] = loader.load(parent.offset(slots[d - 1]), parent.onDiskSize(slots[d - 1]), type);
        slots[d] = target == null ? 0 : nodes[d].startSlot(target);
      }
    }
  }
}
