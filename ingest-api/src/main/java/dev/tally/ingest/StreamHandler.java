package dev.tally.ingest;

import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.Unavailable;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/stream?items=post:1,post:2}: server-sent events named {@code counts}, whose data is the
 * GET object without user fields. On connect the current counts (or, with {@code Last-Event-ID}, what
 * changed since); then each change within a second; a comment heartbeat every
 * {@value #HEARTBEAT_SECONDS} s. Each stream holds one server thread, so their number is capped.
 */
final class StreamHandler {
    static final int MAX_ITEMS = 100;
    static final int HEARTBEAT_SECONDS = 15;

    private static final Logger LOG = LoggerFactory.getLogger(StreamHandler.class);

    private final LiveUpdates live;
    private final CountsQuery counts;
    private final int maxStreams;
    private final AtomicInteger open = new AtomicInteger();

    StreamHandler(LiveUpdates live, CountsQuery counts, int maxStreams) {
        this.live = live;
        this.counts = counts;
        this.maxStreams = maxStreams;
    }

    /** Runs before the stream starts, so a bad request still gets a problem+json answer. */
    void validate(Context ctx) {
        if (!EventStreamAccept.admits(ctx.header("Accept"))) {
            throw new ApiProblem(406, "not-acceptable", "Not acceptable",
                    "a live stream is text/event-stream; this request's Accept excludes it");
        }
        items(ctx);
        if (open.get() >= maxStreams) {
            throw ApiProblem.unavailable("too-many-streams", "this instance serves " + maxStreams + " live streams already");
        }
    }

    void stream(SseClient client) {
        Set<String> items = items(client.ctx());
        if (open.incrementAndGet() > maxStreams) {
            open.decrementAndGet();
            client.close();
            return;
        }
        LiveUpdates.Subscriber subscriber = live.subscribe(items);
        try {
            sendInitial(client, items, client.ctx().header("Last-Event-ID"));
            while (!client.terminated()) {
                LiveUpdates.Change change = subscriber.queue.poll(HEARTBEAT_SECONDS, TimeUnit.SECONDS);
                if (subscriber.overflowed || subscriber.ended) {
                    break; // too slow (it reconnects with Last-Event-ID and catches up), or the server is stopping
                }
                if (change == null) {
                    client.sendComment("heartbeat");
                } else {
                    client.sendEvent("counts", json(change.counts()), change.id());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // the client went away mid-write (Jetty recycles the request): the stream simply ends
            LOG.debug("live stream ended: {}", e.toString());
        } finally {
            live.unsubscribe(subscriber);
            open.decrementAndGet();
            closeQuietly(client);
        }
    }

    private static void closeQuietly(SseClient client) {
        try {
            client.close();
        } catch (RuntimeException e) {
            LOG.debug("closing a live stream: {}", e.toString());
        }
    }

    private void sendInitial(SseClient client, Set<String> items, String lastEventId) {
        Map<String, LiveUpdates.Change> missed = live.missedSince(lastEventId, items);
        if (missed != null) {
            missed.values().forEach(c -> client.sendEvent("counts", json(c.counts()), c.id()));
            return;
        }
        String id = live.currentId();
        for (String key : items) {
            int colon = key.indexOf(':');
            try {
                client.sendEvent("counts", json(counts.counts(key.substring(0, colon), key.substring(colon + 1))), id);
            } catch (Unavailable e) {
                client.sendComment("counts of " + key + " unavailable now; changes will follow");
            }
        }
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

    private static Map<String, Object> json(ItemCountsView view) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("item_type", view.itemType());
        out.put("item_id", view.itemId());
        out.putAll(ReadHandler.countsJson(view));
        return out;
    }

}
