package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.ItemCountsView;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A thousand streams on one item over real HTTP: each is served without a thread of its own (the server's pool is
 * smaller than the audience), the one past {@code TALLY_MAX_STREAMS} is refused with {@code Retry-After}, and a
 * burst of a hundred changes reaches every stream as a few events carrying the final count.
 */
class LiveStreamFanOutTest {
    private static final int STREAMS = 1_000;

    /** Reads one stream's lines: how many {@code counts} events came and the newest {@code upvotes}. */
    private static final class Watcher implements Flow.Subscriber<String> {
        final AtomicInteger events = new AtomicInteger();
        final AtomicLong upvotes = new AtomicLong(-1);
        final CompletableFuture<Void> firstEvent = new CompletableFuture<>();
        volatile int status;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (line.startsWith("data: ")) {
                int at = line.indexOf("\"upvotes\":") + 10;
                upvotes.set(Long.parseLong(line.substring(at, line.indexOf(',', at))));
                events.incrementAndGet();
                firstEvent.complete(null);
            }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {}
    }

    private static ItemCountsView counts(long up) {
        return new ItemCountsView("post", "crowd", up, 0, Map.of(), up, 0, Instant.EPOCH, Map.of(), false);
    }

    @Test
    void everyStreamOfAThousandSeesTheFinalCountOfABurstWithoutAThreadEach() throws Exception {
        ExecutorService clientThreads = Executors.newFixedThreadPool(4);
        HttpClient http = HttpClient.newBuilder().executor(clientThreads).build();
        try (TestApi api = new TestApi(Map.of("TALLY_MAX_STREAMS", Integer.toString(STREAMS)))) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/stream?items=post:crowd"))
                    .header("Accept", "text/event-stream").GET().build();
            List<Watcher> watchers = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                Watcher w = new Watcher();
                watchers.add(w);
                http.sendAsync(request, info -> {
                    w.status = info.statusCode();
                    return HttpResponse.BodySubscribers.fromLineSubscriber(w);
                });
            }
            for (Watcher w : watchers) {
                w.firstEvent.get(60, TimeUnit.SECONDS);
                assertThat(w.status).isEqualTo(200);
            }
            long serverThreads = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("tally-http")).count();
            assertThat(serverThreads).as("the server's threads, with %d streams open", STREAMS).isLessThan(STREAMS / 4);
            assertThat(api.metrics.registry().get(StreamHandler.OPEN_STREAMS).gauge().value()).isEqualTo(STREAMS);

            HttpResponse<String> refused = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("too-many-streams");
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();

            for (int up = 1; up <= 100; up++) {
                api.live.publish("post:crowd", counts(up));
                Thread.sleep(5); // a burst of half a second: a few broadcast intervals
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (watchers.stream().anyMatch(w -> w.upvotes.get() != 100) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(watchers).as("every stream saw the final count").allMatch(w -> w.upvotes.get() == 100);
            int mostEvents = watchers.stream().mapToInt(w -> w.events.get()).max().orElseThrow();
            assertThat(mostEvents).as("1 first event, then a few coalesced ones for 100 changes").isBetween(2, 10);
        } finally {
            clientThreads.shutdownNow();
        }
    }
}
