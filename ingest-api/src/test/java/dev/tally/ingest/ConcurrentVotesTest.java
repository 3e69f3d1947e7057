package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * A POST waiting for its outcome holds no server thread: 2,000 votes wait at once on a pool capped at a few
 * hundred threads (a handler that parked a thread per vote could never have more than the cap waiting),
 * almost none of them busy, then all complete; past {@code TALLY_MAX_IN_FLIGHT} a vote is refused at once.
 */
class ConcurrentVotesTest {
    private static final int WAITING = 2_000;

    @Test
    void twoThousandWaitingVotesHoldNoThreadAndAllComplete() throws Exception {
        ExecutorService clientThreads = Executors.newFixedThreadPool(2);
        try (TestApi api = new TestApi(Map.of("TALLY_MAX_IN_FLIGHT", Integer.toString(WAITING),
                "TALLY_SYNC_TIMEOUT", "30s"), true)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clientThreads)
                    .connectTimeout(Duration.ofSeconds(60)).build();
            QueuedThreadPool pool = (QueuedThreadPool) api.app.jettyServer().server().getThreadPool();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            long start = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(120);
            for (int i = 0; i < WAITING; i++) {
                responses.add(http.sendAsync(vote(api, "w" + i), HttpResponse.BodyHandlers.ofString()));
                // a vote's wait (30 s, the longest TALLY_SYNC_TIMEOUT) runs from its arrival: the next ones are sent
                // once the server has taken all but 100 of those before, so that 2,000 arrive well inside it however
                // slow the machine is (sent at a fixed pace, a CI run once had its first votes answered 202 before
                // the server had taken the last)
                while (api.submitted.size() < i - 100 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            while (api.submitted.size() < WAITING && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(responses.stream().filter(CompletableFuture::isCompletedExceptionally).map(f -> f.handle((r, e) -> e).join()))
                    .as("requests that failed before reaching the server").isEmpty();
            assertThat(api.submitted).as("votes submitted and waiting for their outcome").hasSize(WAITING);
            assertThat(responses).noneMatch(CompletableFuture::isDone);
            int serverThreads = pool.getThreads();
            int jvmThreads = ManagementFactory.getThreadMXBean().getThreadCount();
            System.out.printf("%d votes waiting after %d ms: %d server threads (%d busy), %d JVM threads%n", WAITING,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), serverThreads, pool.getBusyThreads(), jvmThreads);
            assertThat(serverThreads).as("server threads while %d votes wait", WAITING).isLessThanOrEqualTo(pool.getMaxThreads());
            assertThat(pool.getBusyThreads()).as("busy server threads while %d votes wait", WAITING).isLessThan(100);
            assertThat(jvmThreads).as("JVM threads while %d votes wait", WAITING).isLessThan(pool.getMaxThreads() + 100);

            // the ceiling: one more vote is refused at once, and nothing of it is submitted
            HttpResponse<String> refused = http.send(vote(api, "one-too-many"), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("too-many-in-flight");
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat(api.submitted).hasSize(WAITING);

            long arrived = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            api.releaseAnswers();
            for (CompletableFuture<HttpResponse<String>> r : responses) {
                HttpResponse<String> response = r.get(60, TimeUnit.SECONDS);
                assertThat(response.statusCode()).as("%s (released %d ms after the first was sent)", response.body(), arrived)
                        .isEqualTo(200);
                assertThat(response.body()).contains("\"outcome\":\"accepted\"");
            }
            // their slots are free again
            HttpRequest after = HttpRequest.newBuilder(vote(api, "after"), (name, value) -> true)
                    .header("Prefer", "respond-async").build();
            assertThat(http.send(after, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(202);
        } finally {
            clientThreads.shutdownNow();
        }
    }

    @Test
    void preferRespondAsyncAnswers202OnceDurable() throws Exception {
        try (TestApi api = new TestApi(Map.of("TALLY_SYNC_TIMEOUT", "30s"), true)) {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/votes"))
                    .header("Content-Type", "application/json").header("Prefer", "wait=5, Respond-Async")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"p1\",\"vote_value\":1}"))
                    .build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(202); // the outcome is still held: the answer did not wait
            assertThat(response.headers().firstValue("Preference-Applied")).hasValue("respond-async");
            assertThat(response.body()).contains("\"status\":\"pending\"").contains(api.submitted.get(0).getCommandId());
        }
    }

    private static HttpRequest vote(TestApi api, String item) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/votes"))
                .timeout(Duration.ofSeconds(90)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"vote_value\":1}"))
                .build();
    }
}
