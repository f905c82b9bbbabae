package io.hudimeta.table;

/** The path holds no Hudi table: neither hoodie.properties nor its backup exists. */
public final class TableNotFoundException extends HudiTableException {

  public TableNotFoundException(String basePath) {
    super("no Hudi table at " + basePath + ": " + basePath + "/.hoodie/hoodie.properties not found");
  }
}
