package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicScan;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

/**
 * Two deployments share one cluster, each in its own namespace: a vote in one is never counted, shown or logged in
 * the other, and each has its own topics, applications and consumer groups.
 */
class NamespaceIT {
    private final String item = "ns-" + UUID.randomUUID().toString().substring(0, 8);

    private static Env env(String namespace) {
        Map<String, String> vars = new HashMap<>(Map.of("TALLY_NAMESPACE", namespace,
                "TALLY_PARTITIONS", Integer.toString(SharedBroker.PARTITIONS)));
        vars.put("TALLY_BOOTSTRAP", SharedBroker.get().bootstrap());
        vars.put("TALLY_DATA_DIR", SharedBroker.dataDir("node-" + namespace).toString());
        vars.put("TALLY_SECRET", "integration-test-secret-0123456789abcdef");
        vars.put("TALLY_HTTP_PORT", "0");
        vars.put("TALLY_SYNC_TIMEOUT", "10s");
        return Env.of(vars);
    }

    @Test
    void votesInOneNamespaceAreNeverCountedInAnother() throws Exception {
        TallyNode alpha = WalkingSkeletonIT.startAll(env("alpha"));
        TallyNode beta = WalkingSkeletonIT.startAll(env("beta"));
        try {
            TallyClient a = new TallyClient(alpha.httpPort());
            TallyClient b = new TallyClient(beta.httpPort());

            assertThat(a.vote("ann", item, 1, "set").status()).isEqualTo(200);
            assertThat(b.vote("bob", item, -1, "set").status()).isEqualTo(200);
            assertThat(b.vote("cid", item, -1, "set").status()).isEqualTo(200);

            var inBeta = b.awaitItem("ann", item, n -> n.path("downvotes").asLong() == 2, Duration.ofSeconds(10)).body();
            var inAlpha = a.awaitItem("ann", item, n -> n.path("upvotes").asLong() == 1, Duration.ofSeconds(10)).body();
            assertThat(inAlpha.path("upvotes").asLong()).isEqualTo(1);
            assertThat(inAlpha.path("downvotes").asLong()).isZero();
            assertThat(inBeta.path("upvotes").asLong()).isZero();
            assertThat(inBeta.path("downvotes").asLong()).isEqualTo(2);
            assertThat(inBeta.path("user_vote").asInt()).as("ann voted in alpha only").isZero();

            assertThat(events(alpha.runtime().kafka())).hasSize(1);
            assertThat(events(beta.runtime().kafka())).hasSize(2);
            assertThat(events(KafkaSettings.from(Env.of(Map.of("TALLY_BOOTSTRAP", SharedBroker.get().bootstrap())))))
                    .as("the default namespace's log").isEmpty();

            try (Admin admin = Admin.create(alpha.runtime().kafka().clientProps("namespace-it"))) {
                var topics = admin.listTopics().names().get();
                assertThat(topics).contains("alpha.vote-events", "beta.vote-events", "alpha.item-counts", "beta.item-counts");
                var groups = new ArrayList<String>();
                admin.listGroups().all().get().forEach(g -> groups.add(g.groupId()));
                assertThat(groups).contains("alpha-vote-processor", "beta-vote-processor", "alpha-count-projector",
                        "beta-count-projector");
            }
        } finally {
            alpha.close();
            beta.close();
        }
    }

    /** This test's item's events in the namespace's log. */
    private List<VoteEvent> events(KafkaSettings kafka) {
        List<VoteEvent> events = new ArrayList<>();
        TopicScan.readAll(kafka, Topics.VOTE_EVENTS, r -> {
            if (r.value() != null && r.value().getItemId().equals(item)) {
                events.add(r.value());
            }
        });
        return events;
    }
}
