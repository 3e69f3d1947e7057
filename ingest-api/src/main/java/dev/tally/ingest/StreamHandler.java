package dev.tally.ingest;

import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.Unavailable;
import io.javalin.http.Context;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code GET /v1/stream?items=post:1,post:2}: server-sent events named {@code counts}, whose data is the
 * GET object without user fields. On connect the current counts (or, with {@code Last-Event-ID}, what
 * changed since); then each item's latest counts at most every {@link LiveUpdates#INTERVAL}; a comment heartbeat
 * after {@value EventStream#HEARTBEAT_SECONDS} s without an event. A stream holds no thread
 * ({@link EventStream}); their number per instance is capped all the same, since each holds a socket.
 */
final class StreamHandler {
    static final int MAX_ITEMS = 100;
    /** The gauge of streams open now. */
    static final String OPEN_STREAMS = "http.server.streams.open";

    private final LiveUpdates live;
    private final CountsQuery counts;
    private final int maxStreams;
    private final AtomicInteger open = new AtomicInteger();

    StreamHandler(LiveUpdates live, CountsQuery counts, int maxStreams) {
        this.live = live;
        this.counts = counts;
        this.maxStreams = maxStreams;
    }

    /** How many streams are open now. */
    int open() {
        return open.get();
    }

    /** Checks the request (a refusal is an ordinary problem+json answer), then answers with a stream. */
    void stream(Context ctx) {
        if (!EventStreamAccept.admits(ctx.header("Accept"))) {
            throw new ApiProblem(406, "not-acceptable", "Not acceptable",
                    "a live stream is text/event-stream; this request's Accept excludes it");
        }
        Set<String> items = items(ctx);
        if (open.incrementAndGet() > maxStreams) {
            open.decrementAndGet();
            throw ApiProblem.unavailable("too-many-streams", "this instance serves " + maxStreams + " live streams already");
        }
        EventStream stream = new EventStream(items, ended -> {
            live.unsubscribe(ended);
            open.decrementAndGet();
        });
        try {
            live.subscribe(stream); // first, so that no change after the first events is missed
            stream.first(firstEvents(items, ctx.header("Last-Event-ID")));
        } catch (RuntimeException e) {
            stream.end();
            throw e;
        }
        HttpServletResponse res = ctx.res();
        res.setStatus(200);
        res.setContentType("text/event-stream;charset=utf-8");
        res.setHeader("Cache-Control", "no-cache");
        res.setHeader("X-Accel-Buffering", "no"); // a proxy such as nginx passes each event on at once
        res.setBufferSize(EventStream.BUFFER_BYTES);
        // Javalin starts the request's async mode, then completes the response when the stream ends
        ctx.future(() -> {
            stream.start(ctx.req().getAsyncContext(), outputStream(res));
            return stream.done();
        });
    }

    private static ServletOutputStream outputStream(HttpServletResponse res) {
        try {
            return res.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The current counts of each item, or, when this instance can tell exactly, what changed since the client's last event. */
    private List<byte[]> firstEvents(Set<String> items, String lastEventId) {
        Map<String, LiveUpdates.Change> missed = live.missedSince(lastEventId, items);
        if (missed != null) {
            return missed.values().stream().map(c -> EventStream.countsEvent(c.id(), c.counts())).toList();
        }
        String id = live.currentId();
        List<byte[]> events = new ArrayList<>();
        for (String key : items) {
            int colon = key.indexOf(':');
            try {
                events.add(EventStream.countsEvent(id, counts.counts(key.substring(0, colon), key.substring(colon + 1))));
            } catch (Unavailable e) {
                events.add(EventStream.comment("counts of " + key + " unavailable now; changes will follow"));
            }
        }
        return events;
    }

    private static Set<String> items(Context ctx) {
        String param = ctx.queryParam("items");
        if (param == null || param.isEmpty()) {
            throw ApiProblem.invalid("query parameter 'items' is required: ?items=post:1,post:2");
        }
        String[] split = param.split(",", -1);
        if (split.length > MAX_ITEMS) {
            throw ApiProblem.invalid("at most " + MAX_ITEMS + " items per stream, got " + split.length);
        }
        Set<String> keys = new LinkedHashSet<>();
        for (String key : split) {
            int colon = key.indexOf(':');
            if (colon < 0 || !VoteRequest.ITEM_TYPE.matcher(key.substring(0, colon)).matches()
                    || !VoteRequest.ITEM_ID.matcher(key.substring(colon + 1)).matches()) {
                throw ApiProblem.invalid("item '" + VoteRequest.printable(key) + "' must be type:id");
            }
            keys.add(key);
        }
        return keys;
    }
}
