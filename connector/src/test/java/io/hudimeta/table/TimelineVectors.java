package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a {@code timeline_state} conformance case (tests/conformance/timeline_state.json): the names of a
 * timeline directory, collapsed as {@link Timeline#load} does, give the last completed write and the
 * timeline hash that a {@code io.hudimeta.view.SyncedView} compares with its clients'.
 */
public final class TimelineVectors {

  private TimelineVectors() {}

  public static Map<String, Object> state(JsonNode input) {
    List<String> names = new ArrayList<>();
    input.path("fileNames").forEach(n -> names.add(n.asText()));
    List<Instant> instants = Timeline.collapse(names, input.path("layoutVersion").asInt());
    String last = null;
    for (Instant i : instants) {
      if (i.isCompleted() && i.isCommitLike()) {
        last = i.requestedTime();
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("lastInstant", last);
    out.put("timelineHash", Timeline.hash(instants));
    return out;
  }
}
