package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.ItemCountsView;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One stream's writing over the servlet's non-blocking output: the first events go before any broadcast, what the
 * socket cannot take yet waits as the newest event per item only, a failed write ends the stream once, and a quiet
 * stream sends a heartbeat.
 */
class EventStreamTest {
    private final AtomicInteger ended = new AtomicInteger();
    private final EventStream stream = new EventStream(Set.of("post:1", "post:2"), s -> ended.incrementAndGet());
    private final Output out = new Output();

    /** A servlet output that takes writes only while {@link #ready}, as a socket with a full buffer does not. */
    private static final class Output extends ServletOutputStream {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        WriteListener listener;
        boolean ready = true;
        boolean failing;
        int flushes;

        @Override
        public boolean isReady() {
            return ready;
        }

        @Override
        public void setWriteListener(WriteListener writeListener) {
            listener = writeListener;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b});
        }

        @Override
        public void write(byte[] b) throws IOException {
            if (!ready) {
                throw new IllegalStateException("written while not ready");
            }
            if (failing) {
                throw new IOException("broken pipe");
            }
            written.write(b);
        }

        @Override
        public void flush() {
            flushes++;
        }

        /** The socket drained: the container calls the listener. */
        void drain() throws IOException {
            ready = true;
            listener.onWritePossible();
        }

        String text() {
            return written.toString(StandardCharsets.UTF_8);
        }
    }

    private static AsyncContext async() {
        return (AsyncContext) Proxy.newProxyInstance(EventStreamTest.class.getClassLoader(), new Class<?>[] {AsyncContext.class},
                (proxy, method, args) -> null);
    }

    private static byte[] event(String id, long up) {
        return EventStream.countsEvent(id, new ItemCountsView("post", "1", up, 0, Map.of(), up, 0, Instant.EPOCH, Map.of(), false));
    }

    @Test
    void theFirstEventsGoOutBeforeAnyBroadcastAndEachWriteIsFlushed() {
        stream.send("post:1", event("e-2", 2)); // a broadcast that came while the first events were read
        stream.first(List.of(event("e-1", 1)));
        stream.start(async(), out);

        assertThat(out.text()).startsWith("id: e-1\nevent: counts\ndata: {").contains("\"upvotes\":1,");
        assertThat(out.text().indexOf("id: e-2")).isGreaterThan(out.text().indexOf("id: e-1"));
        assertThat(out.flushes).isEqualTo(1);
        assertThat(out.text()).endsWith("\n\n");
    }

    @Test
    void aClientThatCannotTakeMoreGetsOnlyTheNewestEventPerItemWhenItCan() throws IOException {
        stream.start(async(), out);
        out.ready = false;
        for (int up = 1; up <= 100; up++) {
            stream.send("post:1", event("a-" + up, up));
        }
        stream.send("post:2", event("b-1", 7));
        assertThat(out.text()).isEmpty();

        out.drain();

        assertThat(out.text().split("event: counts", -1)).as("two events: one per item").hasSize(3);
        assertThat(out.text()).contains("id: a-100\n").doesNotContain("id: a-99\n").contains("id: b-1\n");
        assertThat(out.text().indexOf("id: a-100")).isLessThan(out.text().indexOf("id: b-1"));
    }

    @Test
    void aFailedWriteEndsTheStreamOnceAndCompletesTheResponse() throws Exception {
        stream.start(async(), out);
        out.failing = true;
        stream.send("post:1", event("e-1", 1));

        assertThat(ended).hasValue(1);
        assertThat(stream.done()).isCompleted();
        stream.onError(new IOException("idle timeout"));
        stream.end();
        assertThat(ended).as("ended once, however often it is told").hasValue(1);
        out.failing = false;
        stream.send("post:1", event("e-2", 2));
        assertThat(out.text()).isEmpty();
    }

    @Test
    void aQuietStreamSendsAHeartbeatAndOnlyOnePerQuietPeriod() {
        stream.start(async(), out);
        long now = System.nanoTime();
        stream.tick(now);
        assertThat(out.text()).isEmpty();

        long later = now + TimeUnit.SECONDS.toNanos(EventStream.HEARTBEAT_SECONDS + 1);
        stream.tick(later);
        stream.tick(later + 1);
        assertThat(out.text()).isEqualTo(": heartbeat\n\n");
    }
}
