package dev.tally.common;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One part of a process that must be ready before the process serves — a Streams application, an
 * in-memory view — with the state it is in and since when. {@code /readyz} answers with every part, so
 * an operator sees which one holds the process back, and how long it has.
 */
public record Readiness(String name, String state, Instant since, boolean ready) {

    /** A view that copies a topic into memory: ready once it has read what existed when it started. */
    public static Readiness view(String name, KeyedView<?> view, Instant started) {
        return view.caughtUp() ? new Readiness(name, "CAUGHT_UP", started, true)
                : new Readiness(name, "CATCHING_UP", started, false);
    }

    public static boolean all(List<Readiness> parts) {
        return parts.stream().allMatch(Readiness::ready);
    }

    /**
     * The {@code /readyz} body: {@code status} ready or starting, the parts not ready under
     * {@code waiting_for}, every part under {@code parts}, and {@code warnings} (ready, but look).
     */
    public static Map<String, Object> body(List<Readiness> parts, List<String> warnings) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", all(parts) ? "ready" : "starting");
        body.put("waiting_for", parts.stream().filter(p -> !p.ready()).map(Readiness::json).toList());
        body.put("parts", parts.stream().map(Readiness::json).toList());
        body.put("warnings", warnings);
        return body;
    }

    private Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("state", state);
        m.put("since", since.toString());
        return m;
    }
}
