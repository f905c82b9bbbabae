package io.hudimeta.log;

/**
 * One entry of a delete block.
 *
 * @param recordKey record key (for metadata-table deletes: the metadata record key)
 * @param partitionPath partition path (for metadata-table deletes: the metadata partition name)
 * @param orderingValue the unwrapped ordering value, or null when none was stored. Types:
 *     Boolean, Integer, Long, Float, Double, byte[], String, LocalDate (date), BigDecimal
 *     (decimal), Long (time-micros), Instant (timestamp-micros). Hudi writes Integer 0 when the
 *     delete carries no ordering value of its own (its default ordering value).
 */
public record DeleteRecord(String recordKey, String partitionPath, Object orderingValue) {}
