package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaAccessTest {

    private static List<String> commands(Map<String, String> env) {
        return KafkaAccess.required(KafkaSettings.from(Env.of(env))).stream()
                .map(g -> g.command("User:tally", "kafka:9093", "admin.properties")).toList();
    }

    @Test
    void aNodeIsGrantedPrefixedResourcesOfItsNamespaceOnlyOneOperationALine() {
        List<String> lines = commands(Map.of());

        assertThat(lines).containsExactly(
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Create --topic tally. --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Read --topic tally. --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Write --topic tally. --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Create --topic tally- --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Read --topic tally- --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Write --topic tally- --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Read --group tally- --resource-pattern-type prefixed",
                "kafka-acls.sh --bootstrap-server kafka:9093 --command-config admin.properties --add --allow-principal User:tally --operation Write --transactional-id tally- --resource-pattern-type prefixed");
        assertThat(String.join("\n", lines)).doesNotContain("--cluster", "'*'", "--operation All", "--topic '*'");
    }

    @Test
    void theGrantsFollowTheNamespaceAndTheTopicMode() {
        List<String> lines = commands(Map.of("TALLY_NAMESPACE", "staging", "TALLY_CREATE_TOPICS", "false"));

        assertThat(lines).allSatisfy(l -> assertThat(l).containsAnyOf(" staging. ", " staging- ").doesNotContain(" tally.", " tally-"));
        assertThat(lines).noneMatch(l -> l.contains("--operation Create --topic staging."))
                .anyMatch(l -> l.contains("--operation DescribeConfigs --topic staging."));
    }

    @Test
    void aMissingGrantIsNamedWithItsOperationAndResource() {
        KafkaAccess.Grant g = KafkaAccess.required(KafkaSettings.from(Env.of(Map.of()))).get(1);

        assertThat(g.describe()).isEqualTo("Read on topics prefixed 'tally.'");
    }
}
