package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * {@code TALLY_CREATE_TOPICS=false}, for operators who manage topics as code: Tally creates nothing of its own and
 * stops a start naming the topic and the setting that is not as it needs; the topics {@code ./tally topics} prints,
 * created with Kafka's own tool, are exactly what it needs.
 */
class TopicsAsCodeIT {
    private static final String NAMESPACE = "ascode";

    private static Map<String, String> vars() {
        Map<String, String> vars = new HashMap<>(Map.of("TALLY_NAMESPACE", NAMESPACE, "TALLY_CREATE_TOPICS", "false",
                "TALLY_PARTITIONS", "2", "TALLY_BOOTSTRAP", SharedBroker.get().bootstrap(),
                "TALLY_DATA_DIR", SharedBroker.dataDir("node-" + NAMESPACE).toString(),
                "TALLY_SECRET", "integration-test-secret-0123456789abcdef", "TALLY_HTTP_PORT", "0",
                "TALLY_SYNC_TIMEOUT", "10s"));
        return vars;
    }

    @Test
    void aStartChecksTheTopicsItMayNotCreateAndNamesWhatIsWrong() throws Exception {
        Env env = Env.of(vars());
        assertThatThrownBy(() -> TallyNode.start(env, EnumSet.allOf(TallyNode.Service.class)))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("ascode.vote-commands does not exist")
                .hasMessageContaining("./tally topics");

        List<String> commands = printedTopics();
        assertThat(commands).hasSize(Topics.ALL.size()).allSatisfy(c -> assertThat(c).contains("--topic ascode."));
        commands.forEach(KafkaTools::run);

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedBroker.get().bootstrap()))) {
            ConfigResource events = new ConfigResource(ConfigResource.Type.TOPIC, "ascode.vote-events");
            admin.incrementalAlterConfigs(Map.of(events, List.of(new AlterConfigOp(new ConfigEntry("retention.ms",
                    "604800000"), AlterConfigOp.OpType.SET)))).all().get();
            assertThatThrownBy(() -> TallyNode.start(env, EnumSet.allOf(TallyNode.Service.class)))
                    .isInstanceOf(Env.ConfigException.class)
                    .hasMessageContaining("ascode.vote-events has retention.ms=604800000, not -1");

            admin.incrementalAlterConfigs(Map.of(events, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "-1"),
                    AlterConfigOp.OpType.SET)))).all().get();
        }
        TallyNode node = WalkingSkeletonIT.startAll(env);
        try {
            var answer = new TallyClient(node.httpPort()).vote("coder", "as-code", 1, "set");
            assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
            assertThat(answer.body().at("/counts/upvotes").asLong()).isEqualTo(1);
        } finally {
            node.close();
        }
    }

    /** {@code ./tally topics} for this namespace, as a user runs it, its kafka-topics lines. */
    private static List<String> printedTopics() throws Exception {
        ProcessBuilder pb = dev.tally.launcher.bench.ChildTally.command(256, "64m", "topics", "--bootstrap",
                SharedBroker.get().bootstrap(), "--command-config", "/dev/null");
        pb.environment().keySet().removeIf(k -> k.startsWith("TALLY_"));
        pb.environment().putAll(vars());
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out.lines().filter(l -> l.startsWith("kafka-topics.sh ")).toList();
    }
}
