package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;
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

    @Test
    void anOperationIsLackedUnlessKafkaReportsItOrAllOrReportsNothing() {
        assertThat(KafkaAccess.lacks(Set.of(AclOperation.READ, AclOperation.DESCRIBE), AclOperation.WRITE)).isTrue();
        assertThat(KafkaAccess.lacks(Set.of(AclOperation.READ, AclOperation.WRITE), AclOperation.WRITE)).isFalse();
        assertThat(KafkaAccess.lacks(Set.of(AclOperation.ALL), AclOperation.WRITE)).isFalse();
        assertThat(KafkaAccess.lacks(Set.of(), AclOperation.READ)).isTrue();
        assertThat(KafkaAccess.lacks(null, AclOperation.READ)).as("an authorizer that reports nothing").isFalse();
    }

    @Test
    void eachPrefixOfTopicsIsCheckedForWhatItMustAllowOnceItExists() {
        KafkaSettings kafka = KafkaSettings.from(Env.of(Map.of("TALLY_CREATE_TOPICS", "false")));
        assertThat(KafkaAccess.topicGrants(kafka, "tally.")).extracting(KafkaAccess.Grant::operation)
                .containsExactly(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        assertThat(KafkaAccess.topicGrants(kafka, "tally-")).extracting(KafkaAccess.Grant::operation)
                .containsExactly(AclOperation.READ, AclOperation.WRITE);
        assertThat(KafkaAccess.grant(kafka, ResourceType.GROUP).describe()).isEqualTo("Read on consumer groups prefixed 'tally-'");
        assertThat(KafkaAccess.grant(kafka, ResourceType.TRANSACTIONAL_ID).describe())
                .isEqualTo("Write on transactional ids prefixed 'tally-'");
    }

    @Test
    void aMissingGrantOrARefusalIsOneMessageTheOperatorActsOn() {
        KafkaSettings kafka = KafkaSettings.from(Env.of(Map.of("TALLY_BOOTSTRAP", "kafka:9093")));
        KafkaAccess.Grant read = KafkaAccess.required(kafka).get(1);
        assertThat(KafkaAccess.missing(read, kafka)).isInstanceOf(Env.ConfigException.class).hasMessageContaining(
                "Kafka at kafka:9093 does not allow this node Read on topics prefixed 'tally.' (needed to read Tally's topics);"
                        + " ./tally acls prints every ACL a node needs");
        assertThat(KafkaAccess.refused("start", new ExecutionException(new SaslAuthenticationException("bad password")), kafka))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("Kafka at kafka:9093 refused this node's credentials (bad password)")
                .hasMessageContaining(KafkaClientConfig.FILE_VARIABLE);
        assertThat(KafkaAccess.refused("describe topic t", new ExecutionException(new TopicAuthorizationException("denied")), kafka))
                .isInstanceOf(Env.ConfigException.class)
                .hasMessageContaining("Kafka at kafka:9093 refused to let this node describe topic t (denied); ./tally acls");
        assertThat(KafkaAccess.refused("start", new TimeoutException("late"), kafka)).isInstanceOf(Env.ConfigException.class)
                .hasMessageContaining("no Kafka broker at kafka:9093 answered within 30 s (to start)");
        assertThat(KafkaAccess.refused("start", new ExecutionException(new org.apache.kafka.common.errors.TimeoutException("late")), kafka))
                .hasMessageContaining("no Kafka broker at kafka:9093 answered");
        RuntimeException other = KafkaAccess.refused("start", new ExecutionException(new IllegalStateException("odd")), kafka);
        assertThat(other).isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot start at kafka:9093")
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(KafkaAccess.refused("start", new ExecutionException(null), kafka)).hasCauseInstanceOf(ExecutionException.class);
    }

    @Test
    void operationsAreNamedAsKafkaAclsSpellsThem() {
        assertThat(KafkaAccess.operationName(AclOperation.DESCRIBE_CONFIGS)).isEqualTo("DescribeConfigs");
        assertThat(KafkaAccess.operationName(AclOperation.IDEMPOTENT_WRITE)).isEqualTo("IdempotentWrite");
        assertThat(KafkaAccess.operationName(AclOperation.READ)).isEqualTo("Read");
    }
}
