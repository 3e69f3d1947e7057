package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.Env;
import dev.tally.launcher.bench.StreamWatchers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two instances of every service side by side (as two processes would run them), sharing the Streams
 * applications: each answers for keys the other owns, a voter reads their own write on either, a live
 * stream on one sees a vote cast on the other, a thousand streams on each see the final count of a burst cast on
 * both, and when one stops the other takes over.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadSideIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static TallyNode a;
    private static TallyNode b;
    private static TallyClient onA;
    private static TallyClient onB;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    static Env env(String dir, int replyPartition) {
        return WalkingSkeletonIT.env(SharedBroker.dataDir(dir))
                .with("TALLY_REPLY_PARTITION", Integer.toString(replyPartition))
                .with("TALLY_STANDBY_REPLICAS", "1")
                // a hundred voters from 127.0.0.1 on one item within seconds is the stream test's audience, not fraud
                .with("TALLY_CLUSTER_VOTERS", "1000000")
                .with("TALLY_BURST_FLOOR", "1000000");
    }

    /**
     * Both instances start together, each on a fresh data dir of its own: the HA assignor keeps every
     * active task on an instance whose stores are already caught up while a newcomer warms up (until a
     * probing rebalance, 10 minutes away), so one started on the suite's shared, restored dir beside one
     * starting from nothing may own no active task at all.
     */
    @BeforeAll
    static void start() throws InterruptedException {
        a = TallyNode.start(env("read-side-a", 0), EnumSet.allOf(TallyNode.Service.class));
        b = TallyNode.start(env("read-side-b", 1), EnumSet.allOf(TallyNode.Service.class));
        awaitBothReady();
        onA = new TallyClient(a.httpPort());
        onB = new TallyClient(b.httpPort());
    }

    @AfterAll
    static void stop() {
        b.close();
        a.close();
    }

    private static void awaitBothReady() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos(); // both restore the suite's changelogs
        while (!(a.ready() && b.ready()) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(a.ready() && b.ready()).as("both instances RUNNING after the rebalance").isTrue();
    }

    @Test
    @Order(1)
    void eachInstanceAnswersForKeysTheOtherOwns() {
        for (TallyNode node : List.of(a, b)) {
            node.streamsServices().forEach(s -> assertThat(s.streams().metadataForLocalThreads())
                    .as("%s has tasks on this instance", s.name())
                    .anySatisfy(t -> assertThat(t.activeTasks()).isNotEmpty()));
        }
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            String id = "spread-" + i + "-" + run;
            ids.add(id);
            TallyClient via = i % 2 == 0 ? onA : onB;
            assertThat(via.vote("reader" + i, id, i % 3 == 0 ? -1 : 1, "set").status()).isEqualTo(200);
        }
        for (int i = 0; i < ids.size(); i++) {
            JsonNode fromA = onA.get("reader" + i, "/v1/votes/post/" + ids.get(i)).body();
            JsonNode fromB = onB.get("reader" + i, "/v1/votes/post/" + ids.get(i)).body();
            assertThat(fromA).isEqualTo(fromB);
            assertThat(fromA.get("user_vote").asInt()).isEqualTo(i % 3 == 0 ? -1 : 1);
            assertThat(fromA.get("upvotes").asLong() + fromA.get("downvotes").asLong()).isEqualTo(1);
        }
        List<String> reversed = new ArrayList<>(ids.subList(0, 10));
        java.util.Collections.reverse(reversed);
        var batch = onB.get(null, "/v1/votes/post?ids=" + String.join(",", reversed));
        assertThat(batch.body().get("items").findValuesAsText("item_id")).containsExactlyElementsOf(reversed);
    }

    @Test
    @Order(2)
    void aVoterReadsTheirOwnWriteOnTheOtherInstance() {
        for (int i = 0; i < 10; i++) {
            String id = "ryw-" + i + "-" + run;
            assertThat(onA.vote("writer" + i, id, 1, "toggle").status()).isEqualTo(200);

            var read = onB.get("writer" + i, "/v1/votes/post/" + id);

            assertThat(read.body().get("upvotes").asLong()).as("GET on B right after the POST on A").isEqualTo(1);
            assertThat(read.body().get("user_vote").asInt()).isEqualTo(1);
            assertThat(read.header("Tally-Stale")).isNull();
            assertThat(read.header("Tally-Position")).isNotBlank();
        }
    }

    @Test
    @Order(3)
    void anUnchangedItemAnswers304ToItsETag() throws InterruptedException {
        String id = "etag-" + run;
        onA.vote("etagger", id, 1, "set");
        // a read without a voter is eventually consistent: take the ETag of the answer that shows the vote
        var first = onB.get(null, "/v1/votes/post/" + id);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (first.body().get("upvotes").asLong() != 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            first = onB.get(null, "/v1/votes/post/" + id);
        }
        assertThat(first.body().get("upvotes").asLong()).isEqualTo(1);

        var again = onB.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.httpPort() + "/v1/votes/post/" + id))
                .header("If-None-Match", first.header("ETag")).GET());

        assertThat(again.status()).isEqualTo(304);
    }

    @Test
    @Order(4)
    void aLiveStreamOnOneInstanceSeesAVoteCastOnTheOther() throws Exception {
        String id = "live-" + run;
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        var stream = HttpClient.newHttpClient().sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.httpPort() + "/v1/stream?items=post:" + id))
                        .header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.fromLineSubscriber(new LineCollector(lines)));
        JsonNode initial = nextCounts(lines);
        assertThat(initial.get("upvotes").asLong()).isZero();

        onA.vote("streamer", id, 1, "set");

        JsonNode changed = nextCounts(lines);
        assertThat(changed.get("item_id").asText()).isEqualTo(id);
        assertThat(changed.get("upvotes").asLong()).isEqualTo(1);
        assertThat(changed.has("user_vote")).isFalse();
        stream.cancel(true);
    }

    @Test
    @Order(5)
    void thousandsOfStreamsOnBothInstancesAllSeeTheFinalCountOfABurst() throws Exception {
        String id = "crowd-" + run;
        int perInstance = 1_000;
        int burst = 100;
        try (StreamWatchers watchers = new StreamWatchers("it-watchers")) {
            List<StreamWatchers.Watcher> streams = new ArrayList<>();
            for (TallyNode node : List.of(a, b)) {
                streams.addAll(watchers.open("http://127.0.0.1:" + node.httpPort() + "/v1/stream?items=post:" + id, perInstance,
                        200, Duration.ofSeconds(60)));
            }
            assertThat(streams).as("every stream answered 200 with its first event")
                    .allMatch(w -> w.status() == 200 && w.events() == 1 && w.upvotes() == 0);

            watchers.target(burst);
            for (int i = 0; i < burst; i++) {
                var r = (i % 2 == 0 ? onA : onB).vote("crowd-" + i, id, 1, "set");
                assertThat(r.status()).isEqualTo(200);
            }

            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (streams.stream().anyMatch(w -> w.sawTargetNanos() < 0) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(streams.stream().filter(w -> w.upvotes() == burst).count())
                    .as("streams on either instance showing the final count").isEqualTo(2L * perInstance);
            assertThat(streams.stream().mapToInt(StreamWatchers.Watcher::events).max().orElseThrow())
                    .as("a few coalesced events for %d votes, not one per vote", burst).isLessThan(burst / 2);
        }
    }

    @Test
    @Order(6)
    void whenOneInstanceStopsTheOtherAnswersForEveryKeyWithoutErrors() throws InterruptedException {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add("failover-" + i + "-" + run);
            onB.vote("survivor" + i, ids.get(i), 1, "set");
        }
        b.close();

        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        boolean allAnswered = false;
        while (!allAnswered && System.nanoTime() < deadline) {
            allAnswered = true;
            for (int i = 0; i < ids.size(); i++) {
                var r = onA.get("survivor" + i, "/v1/votes/post/" + ids.get(i));
                assertThat(r.status()).as("only 200, or 503 with Retry-After while tasks move").isIn(200, 503);
                if (r.status() == 503) {
                    assertThat(r.header("Retry-After")).isNotBlank();
                    allAnswered = false;
                } else {
                    assertThat(r.body().get("upvotes").asLong()).isEqualTo(1);
                }
            }
            Thread.sleep(200);
        }
        assertThat(allAnswered).as("A answers for every key after B left").isTrue();
        b = WalkingSkeletonIT.startAll(env("read-side-b", 1)); // @AfterAll closes it again
    }

    private static JsonNode nextCounts(BlockingQueue<String> lines) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        boolean inCounts = false;
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line == null) {
                continue;
            }
            if (line.startsWith("event:")) {
                inCounts = line.substring(6).strip().equals("counts");
            } else if (inCounts && line.startsWith("data:")) {
                return JSON.readTree(line.substring(5).strip());
            }
        }
        throw new AssertionError("no counts event within 10 s");
    }

    /** Collects the stream's lines as they arrive. */
    private record LineCollector(BlockingQueue<String> lines) implements java.util.concurrent.Flow.Subscriber<String> {
        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            lines.add(line);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {}
    }
}
