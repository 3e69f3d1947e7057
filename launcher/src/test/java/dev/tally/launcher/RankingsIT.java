package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.common.Env;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The ranked lists of a node of their own namespace, against the event log: {@code ./tally rankings verify} agrees
 * after a burst of votes, after a restart on the same state, and after a restart that lost the indexes (rebuilt from
 * the items); {@code ./tally rankings rebuild --policy all} replays the log into a second set of lists, switches the
 * default to them, and both policies answer.
 */
class RankingsIT {
    private static final String NAMESPACE = "ranked";

    private static Env env(Path dataDir) {
        return WalkingSkeletonIT.env(dataDir).with("TALLY_NAMESPACE", NAMESPACE).with("TALLY_BURST_FLOOR", "1000000")
                .with("TALLY_CLUSTER_VOTERS", "1000000");
    }

    @Test
    void verifyAgreesThroughRestartsAndARebuildUnderAnotherPolicyServesBesideTheFirst() throws Exception {
        Path dataDir = SharedBroker.dataDir("ranked");
        TallyNode node = WalkingSkeletonIT.startAll(env(dataDir));
        try {
            TallyClient client = new TallyClient(node.httpPort());
            for (int i = 0; i < 60; i++) {
                String type = i % 3 == 0 ? "song" : "post";
                int value = i % 4 == 0 ? -1 : 1;
                var r = client.vote("ranker" + (i % 7), "{\"item_type\":\"" + type + "\",\"item_id\":\"r" + (i % 9)
                        + "\",\"vote_value\":" + value + "}");
                assertThat(r.status()).isEqualTo(200);
            }
            assertThat(verify(node, "trusted").last()).startsWith("lists=22 differing=0 items=9 ");

            node.close();
            node = WalkingSkeletonIT.startAll(env(dataDir));
            assertThat(verify(node, "trusted").last()).as("after a restart on the same state").startsWith("lists=22 differing=0 items=9 ");

            node.close();
            try (Stream<Path> all = Files.walk(dataDir)) {
                for (Path index : all.filter(p -> p.getFileName().toString().equals("ranking-index")).toList()) {
                    deleteTree(index);
                }
            }
            node = WalkingSkeletonIT.startAll(env(dataDir));
            assertThat(verify(node, "trusted").last()).as("after the indexes were lost").startsWith("lists=22 differing=0 items=9 ");

            client = new TallyClient(node.httpPort());
            CliRun.Output rebuild = cli(node, "rebuild", "--policy", "all", "--timeout-seconds", "120");
            assertThat(rebuild.exit()).as(rebuild.err()).isZero();
            JsonNode byDefault = awaitPolicy(client, "all");
            assertThat(byDefault.get("policy").asText()).isEqualTo("all");
            var trusted = client.get(null, "/v1/rankings/post?policy=trusted");
            assertThat(trusted.status()).isEqualTo(200);
            assertThat(trusted.body().get("items").size()).isEqualTo(byDefault.get("items").size());
            assertThat(verify(node, "all").last()).startsWith("lists=22 differing=0 items=9 ");
            assertThat(client.get(null, "/v1/rankings/post?policy=signed-in").status()).isEqualTo(404);
        } finally {
            node.close();
        }
    }

    private static JsonNode awaitPolicy(TallyClient client, String policy) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = client.get(null, "/v1/rankings/post").body();
            if (policy.equals(last.path("policy").asText())) {
                return last;
            }
            Thread.sleep(200);
        }
        return last;
    }

    private static CliRun.Output verify(TallyNode node, String policy) {
        CliRun.Output out = cli(node, "verify", "--policy", policy, "--url", "http://127.0.0.1:" + node.httpPort());
        assertThat(out.exit()).as("verify exit; stdout %s; stderr %s", out.lines(), out.err()).isZero();
        return out;
    }

    private static CliRun.Output cli(TallyNode node, String... args) {
        return CliRun.run(new RankingsCommand(), Stream.concat(Stream.of(args), Stream.of("--bootstrap",
                SharedBroker.get().bootstrap(), "--namespace", NAMESPACE)).toArray(String[]::new));
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
