package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schemas.Topics;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

class TopicAdminTest {
    private static final KafkaSettings CLUSTER = KafkaSettings.from(Env.of(Map.of("TALLY_PROFILE", "prod",
            "TALLY_REPLICATION_FACTOR", "3", "TALLY_NAMESPACE", "prod")));

    private static NewTopic spec(String name) {
        return TopicAdmin.specs(CLUSTER).stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    private static Config config(String... pairs) {
        List<ConfigEntry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) {
            entries.add(new ConfigEntry(pairs[i], pairs[i + 1]));
        }
        return new Config(entries);
    }

    @Test
    void theSpecsAreTheNamespacesTopicsWithWhatTallyReliesOn() {
        assertThat(TopicAdmin.specs(CLUSTER)).hasSize(Topics.ALL.size())
                .allSatisfy(t -> assertThat(t.name()).startsWith("prod."))
                .allSatisfy(t -> assertThat(t.numPartitions()).isEqualTo(12))
                .allSatisfy(t -> assertThat(t.configs()).containsEntry("min.insync.replicas", "2"));
        assertThat(spec("prod.vote-events").configs()).containsEntry("retention.ms", "-1").containsEntry("cleanup.policy", "delete");
        assertThat(spec("prod.item-counts").configs()).containsEntry("cleanup.policy", "compact")
                .containsEntry("min.compaction.lag.ms", "3600000");
    }

    @Test
    void aTopicAsTallyNeedsItHasNoMismatch() {
        NewTopic events = spec("prod.vote-events");

        assertThat(TopicAdmin.mismatches(events, 12, 3, config("cleanup.policy", "delete", "retention.ms", "-1",
                "min.insync.replicas", "2"), CLUSTER)).isEmpty();
    }

    @Test
    void eachWrongSettingIsNamedWithItsTopic() {
        assertThat(TopicAdmin.mismatches(spec("prod.vote-events"), 6, 1, config("cleanup.policy", "compact",
                "retention.ms", "604800000", "min.insync.replicas", "1"), CLUSTER)).containsExactly(
                "prod.vote-events has 6 partitions, not 12 (TALLY_PARTITIONS)",
                "prod.vote-events has 1 replicas, fewer than 3 (TALLY_REPLICATION_FACTOR)",
                "prod.vote-events has cleanup.policy=compact, not delete",
                "prod.vote-events has retention.ms=604800000, not -1: every count is recomputed from it, so it is kept forever",
                "prod.vote-events has min.insync.replicas=1, under 2: an acknowledged vote must be on two replicas");
        assertThat(TopicAdmin.mismatches(spec("prod.item-counts"), 12, 3, config("cleanup.policy", "compact",
                "min.compaction.lag.ms", "0", "min.insync.replicas", "2"), CLUSTER)).containsExactly(
                "prod.item-counts has min.compaction.lag.ms=0, under 3600000 (the reconcile reads it in passes)");
    }
}
