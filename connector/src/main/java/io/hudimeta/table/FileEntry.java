package io.hudimeta.table;

import java.io.Serializable;

/** A listed file: its name inside the partition directory and its size in bytes (-1 if unknown). */
public record FileEntry(String name, long size) implements Serializable {}
