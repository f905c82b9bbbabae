package io.hudimeta.view;

import io.hudimeta.metadata.MetadataFileListing;
import io.hudimeta.metadata.MetadataTable;

/**
 * A plan's use of a metadata table ({@link #table()}, null when none is in sync), released by {@link #close()}.
 * A lease on a {@link SyncedView}'s state shares the metadata table the view opened for that state: a query
 * then opens the metadata table once for its listing, its data skipping and its index lookups (on an object
 * store each open is a dozen requests), and repeated queries of an unchanged table open it no more. As Apache
 * Hudi's HoodieBackedTableMetadata, which keeps its readers open between lookups.
 */
public final class MetadataLease implements AutoCloseable {

  /** No metadata table: data skipping is off, or it is not in sync. */
  public static final MetadataLease NONE = new MetadataLease(null, null);

  private final MetadataTable table;
  private final Shared shared; // null: the table is the lease's own, closed with it

  private MetadataLease(MetadataTable table, Shared shared) {
    this.table = table;
    this.shared = shared;
  }

  /** A lease on a metadata table of the caller's own (closed with the lease); null gives {@link #NONE}. */
  public static MetadataLease own(MetadataTable table) {
    return table == null ? NONE : new MetadataLease(table, null);
  }

  public MetadataTable table() {
    return table;
  }

  @Override
  public void close() {
    if (shared != null) {
      shared.release();
    } else if (table != null) {
      table.close();
    }
  }

  /**
   * The metadata table of one state of a view (null listing: none in sync), closed once the view has moved
   * to another state ({@link #retire}) and the last lease on it is released.
   */
  static final class Shared {

    private final MetadataFileListing listing;
    private int leases;
    private boolean retired;

    Shared(MetadataFileListing listing) {
      this.listing = listing;
    }

    /** The listing for the view itself (under the view's lock, which retires it), or null. */
    MetadataFileListing listing() {
      return listing;
    }

    synchronized MetadataLease lease() {
      if (listing == null) {
        return NONE;
      }
      leases++;
      return new MetadataLease(listing.metadataTable(), this);
    }

    synchronized void retire() {
      retired = true;
      closeIfUnused();
    }

    private synchronized void release() {
      leases--;
      closeIfUnused();
    }

    private void closeIfUnused() {
      if (retired && leases == 0 && listing != null) {
        listing.close();
      }
    }
  }
}
