package dev.tally.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.query.ItemCountsView;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open {@code GET /v1/stream} response, written without a thread of its own: events go out through the
 * servlet's non-blocking output ({@link WriteListener}), so an open stream costs a socket and a few kilobytes.
 *
 * <p>What the socket cannot take yet waits here, and only the newest event per item: a client that reads slowly
 * skips counts it had no room for and gets the latest, never a backlog. A client that takes nothing at all has its
 * write time out (the server's idle timeout) and the stream ends; it reconnects with its {@code Last-Event-ID}.
 * A comment heartbeat goes out after {@value #HEARTBEAT_SECONDS} s without a write, which also finds clients
 * that went away.
 */
final class EventStream implements LiveUpdates.Subscriber, WriteListener, AsyncListener {
    static final int HEARTBEAT_SECONDS = 15;
    /** The response's output buffer: events are a few hundred bytes, and every open stream holds one. */
    static final int BUFFER_BYTES = 2048;

    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] HEARTBEAT = comment("heartbeat");

    private final Set<String> items;
    private final Consumer<EventStream> onEnd;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    // guarded by this
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>(); // in order: the first events, heartbeats
    private final Map<String, byte[]> latest = new LinkedHashMap<>(); // per item, oldest first
    private ServletOutputStream out; // set once the container said it can be written
    private boolean unflushed;
    private boolean ended;
    private boolean wrote; // since the last tick
    private long lastWriteNanos = System.nanoTime(); // as ticks tell the time

    /** @param onEnd runs once when the stream ends, however it ends */
    EventStream(Set<String> items, Consumer<EventStream> onEnd) {
        this.items = items;
        this.onEnd = onEnd;
    }

    @Override
    public Set<String> items() {
        return items;
    }

    /** Completes when the stream has ended: the response may then be completed. */
    CompletableFuture<Void> done() {
        return done;
    }

    /** The events a client gets first (the current counts, or what it missed): written before any broadcast. */
    synchronized void first(List<byte[]> events) {
        if (!ended) {
            queue.addAll(events);
        }
    }

    /** Starts writing: {@code async} is the request's started async context, {@code output} its response's stream. */
    void start(AsyncContext async, ServletOutputStream output) {
        async.setTimeout(0); // a stream has no deadline; a stalled write still times out on the connection
        async.addListener(this);
        output.setWriteListener(this); // from here on the output never blocks
        synchronized (this) {
            out = output;
        }
        writeWhatWaits(); // in case the container's first onWritePossible came before out was set
    }

    @Override
    public void send(String itemKey, byte[] event) {
        synchronized (this) {
            if (ended) {
                return;
            }
            latest.remove(itemKey); // so the map's order stays the order of the events' ids
            latest.put(itemKey, event);
        }
        writeWhatWaits();
    }

    @Override
    public void tick(long nowNanos) {
        synchronized (this) {
            if (wrote) {
                wrote = false;
                lastWriteNanos = nowNanos;
            }
            if (ended || nowNanos - lastWriteNanos < TimeUnit.SECONDS.toNanos(HEARTBEAT_SECONDS) || !queue.isEmpty()
                    || !latest.isEmpty()) {
                return;
            }
            queue.add(HEARTBEAT);
            lastWriteNanos = nowNanos; // one heartbeat per quiet period, even while it cannot be written
        }
        writeWhatWaits();
    }

    @Override
    public void onWritePossible() {
        writeWhatWaits();
    }

    /** Writes what waits while the output takes it without blocking; the container calls back when it can take more. */
    private void writeWhatWaits() {
        try {
            synchronized (this) {
                if (out == null || ended) {
                    return;
                }
                while (out.isReady()) {
                    byte[] next = queue.poll();
                    if (next == null && !latest.isEmpty()) {
                        Iterator<byte[]> oldest = latest.values().iterator();
                        next = oldest.next();
                        oldest.remove();
                    }
                    if (next != null) {
                        out.write(next);
                        unflushed = true;
                        wrote = true;
                    } else if (unflushed) {
                        unflushed = false;
                        out.flush(); // then isReady() tells whether it went out at once
                    } else {
                        return;
                    }
                }
            }
        } catch (IOException | IllegalStateException e) { // the client went away, or the response is done
            LOG.debug("live stream ended on write: {}", e.toString());
            end();
        }
    }

    @Override
    public void onError(Throwable t) { // the write failed or timed out: the client is gone or stalled
        LOG.debug("live stream failed: {}", t.toString());
        end();
    }

    @Override
    public void end() {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            queue.clear();
            latest.clear();
        }
        onEnd.accept(this);
        done.complete(null);
    }

    @Override
    public void onComplete(AsyncEvent event) {
        end();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        end();
    }

    @Override
    public void onError(AsyncEvent event) {
        end();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {}

    /** An event {@code counts} with the item's counts (the GET object without user fields). */
    static byte[] countsEvent(String id, ItemCountsView view) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("item_type", view.itemType());
        data.put("item_id", view.itemId());
        data.putAll(ReadHandler.countsJson(view));
        try {
            return ("id: " + id + "\nevent: counts\ndata: " + JSON.writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A comment line: ignored by clients, it keeps the connection alive and shows it is. */
    static byte[] comment(String text) {
        return (": " + text + "\n\n").getBytes(StandardCharsets.UTF_8);
    }
}
