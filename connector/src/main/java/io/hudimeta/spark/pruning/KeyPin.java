package io.hudimeta.spark.pruning;

import io.hudimeta.index.IndexDefinitions;
import io.hudimeta.index.SecondaryValues;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataType;

/**
 * What filters say of the record keys of the rows they keep: these keys ({@link Keys}), the keys a
 * secondary index holds for these values ({@link Values}), or the keys both ({@link Both}, AND) or either
 * ({@link Either}, OR) of two pins give; a filter that says nothing has no pin (null). A tree, not a key set,
 * so that planning reads no index: the secondary-index lookups run once, when pruning, for all values.
 */
sealed interface KeyPin {
  record Keys(Set<String> keys) implements KeyPin {}

  record Values(IndexDefinitions.Secondary index, Set<String> texts) implements KeyPin {}

  record Both(KeyPin left, KeyPin right) implements KeyPin {}

  record Either(KeyPin left, KeyPin right) implements KeyPin {}

  /** A column a secondary index covers: the index, and the column's type (how literals become key text). */
  record Indexed(IndexDefinitions.Secondary index, DataType type) {}

  /** The columns whose literals pin keys: key columns with their types, indexed columns. */
  record Columns(Map<String, DataType> keys, Map<String, Indexed> indexed) {}

  /** What all filters (ANDed) pin, or null. */
  static KeyPin of(Filter[] filters, Columns columns) {
    Pins pins = new Pins(columns);
    KeyPin out = null;
    for (Filter f : filters) {
      out = both(out, pins.visit(f));
    }
    return out;
  }

  /** The pin of a column compared with literals (a null literal matches no row); null if any is unknown. */
  private static KeyPin compared(String column, Object[] literals, Columns c) {
    DataType keyType = c.keys().get(column);
    if (keyType != null) {
      Set<String> keys = texts(literals, v -> keyText(keyType, v));
      return keys == null ? null : new Keys(keys);
    }
    Indexed indexed = c.indexed().get(column);
    if (indexed != null) {
      Set<String> texts = texts(literals, v -> SecondaryValues.text(indexed.type(), v));
      return texts == null ? null : new Values(indexed.index(), texts);
    }
    return null;
  }

  private static Set<String> texts(Object[] literals, Function<Object, String> text) {
    Set<String> out = new TreeSet<>();
    for (Object v : literals) {
      if (v != null) {
        String t = text.apply(v);
        if (t == null) {
          return null;
        }
        out.add(t);
      }
    }
    return out;
  }

  /** Rows both keep; like pins merge now (the same index: values both hold, of one column = common ones). */
  static KeyPin both(KeyPin a, KeyPin b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    if (a instanceof Keys x && b instanceof Keys y) {
      return new Keys(common(x.keys(), y.keys()));
    }
    if (a instanceof Values x && b instanceof Values y && x.index().equals(y.index())) {
      return new Values(x.index(), common(x.texts(), y.texts()));
    }
    return new Both(a, b);
  }

  /** Rows either keeps: a pin only when both sides pin. */
  static KeyPin either(KeyPin a, KeyPin b) {
    if (a == null || b == null) {
      return null;
    }
    if (a instanceof Keys x && b instanceof Keys y) {
      return new Keys(all(x.keys(), y.keys()));
    }
    if (a instanceof Values x && b instanceof Values y && x.index().equals(y.index())) {
      return new Values(x.index(), all(x.texts(), y.texts()));
    }
    return new Either(a, b);
  }

  /** Every key a pin names itself. */
  static Set<String> keys(KeyPin p) {
    if (p instanceof Keys k) {
      return k.keys();
    }
    if (p instanceof Both b) {
      return all(keys(b.left()), keys(b.right()));
    }
    return p instanceof Either e ? all(keys(e.left()), keys(e.right())) : Set.of();
  }

  /** Every secondary-index value a pin names, by index partition (sorted). */
  static Map<String, Values> lookups(KeyPin p) {
    Map<String, Values> out = new TreeMap<>();
    addLookups(p, out);
    return out;
  }

  private static void addLookups(KeyPin p, Map<String, Values> out) {
    if (p instanceof Values v) {
      out.merge(v.index().partition(), v, (x, y) -> new Values(x.index(), all(x.texts(), y.texts())));
    } else if (p instanceof Both b) {
      addLookups(b.left(), out);
      addLookups(b.right(), out);
    } else if (p instanceof Either e) {
      addLookups(e.left(), out);
      addLookups(e.right(), out);
    }
  }

  /** The keys a pin gives, with what the secondary indexes hold: partition -> value text -> keys. */
  static Set<String> resolve(KeyPin p, Map<String, Map<String, Set<String>>> found) {
    if (p instanceof Keys k) {
      return new TreeSet<>(k.keys());
    }
    if (p instanceof Values v) {
      Map<String, Set<String>> byValue = found.getOrDefault(v.index().partition(), Map.of());
      Set<String> out = new TreeSet<>();
      v.texts().forEach(t -> out.addAll(byValue.getOrDefault(t, Set.of())));
      return out;
    }
    if (p instanceof Both b) {
      return common(resolve(b.left(), found), resolve(b.right(), found));
    }
    Either e = (Either) p;
    return all(resolve(e.left(), found), resolve(e.right(), found));
  }

  private static Set<String> common(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.retainAll(b);
    return out;
  }

  private static Set<String> all(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.addAll(b);
    return out;
  }

  /** The record key a literal compared with a key column is written as (its text), or null when unknown. */
  private static String keyText(DataType column, Object value) {
    return SecondaryValues.text(column, value);
  }

  /** What one filter pins: AND gives what both sides pin, OR what either does; NOT and other filters nothing. */
  final class Pins extends FilterVisitor<KeyPin> {

    private final Columns columns;

    Pins(Columns columns) {
      this.columns = columns;
    }

    @Override
    KeyPin unknown() {
      return null;
    }

    @Override
    KeyPin and(KeyPin l, KeyPin r) {
      return both(l, r);
    }

    @Override
    KeyPin or(KeyPin l, KeyPin r) {
      return either(l, r);
    }

    @Override
    KeyPin equalTo(String column, Object value) {
      return compared(column, new Object[] { value }, columns);
    }

    @Override
    KeyPin equalNullSafe(String column, Object value) {
      return value == null ? null : compared(column, new Object[] { value }, columns);
    }

    @Override
    KeyPin in(String column, Object[] values) {
      return compared(column, values, columns);
    }
  }
}
