package io.hudimeta.hfile;

import java.io.IOException;

/** Walks cells in file order from a starting point, crossing data block boundaries. */
final class CellCursor {

  interface BlockLoader {
    /** The data block at offset, whose rows the index bounds by lowerRow and upperRow (null: unknown). */
    DataBlock load(long offset, int onDiskSize, byte[] lowerRow, byte[] upperRow) throws IOException;
  }

  private final BlockIndex.Position position;
  private final BlockLoader loader;
  private DataBlock block;
  private int slot;

  private CellCursor(BlockIndex.Position position, BlockLoader loader, byte[] target) throws IOException {
    this.position = position;
    this.loader = loader;
    if (position != null) {
      block = load();
      slot = target == null ? 0 : block.lowerBound(target);
    }
  }

  /** Cursor on the first cell of the file. */
  static CellCursor atStart(BlockIndex index, BlockLoader loader) throws IOException {
    return new CellCursor(index.first(), loader, null);
  }

  /**
   * Cursor on the first cell whose row is >= row. The index picks the last block whose key sorts
   * before row; if row is not in it, the cursor runs off its end onto the next block, whose first
   * row is >= its index key >= row.
   */
  static CellCursor atOrAfter(BlockIndex index, BlockLoader loader, byte[] row) throws IOException {
    return new CellCursor(index.seek(row), loader, row);
  }

  /** True while the cursor is on a cell; moves into the next block when this one is used up. */
  boolean valid() throws IOException {
    while (block != null && slot >= block.count()) {
      if (position.advance()) {
        block = load();
        slot = 0;
      } else {
        block = null;
      }
    }
    return block != null;
  }

  private DataBlock load() throws IOException {
    return loader.load(
      position.blockOffset(),
      position.blockSize(),
      position.blockLowerRow(),
      position.blockUpperRow()
    );
  }

  /**
   * Moves to the first cell whose row is >= row when that cell is in the current block; false, the
   * cursor unmoved, when it is not. Every cell before the cursor must sort before row (a cursor left by
   * {@link #atOrAfter} for a smaller row).
   */
  boolean forwardInBlock(byte[] row) {
    // heads first: a row read at each key (the block's last) cost a tenth of a lookup
    long head = Bytes.head(row, 0, row.length);
    if (block == null || block.count() == 0 || block.compareRow(block.count() - 1, row, head) < 0) {
      return false;
    }
    slot = block.lowerBound(row, head, Math.min(slot, block.count()));
    return true;
  }

  int compareRow(byte[] row) {
    return block.compareRow(slot, row);
  }

  boolean rowStartsWith(byte[] prefix) {
    return block.rowStartsWith(slot, prefix);
  }

  Cell cell() {
    return block.cell(slot);
  }

  /** Hands the current cell's value to the visitor as key {@code key}'s. */
  void visitValue(int key, HFileReader.ValueVisitor visitor) throws IOException {
    block.visitValue(slot, key, visitor);
  }

  void next() {
    slot++;
  }
}
