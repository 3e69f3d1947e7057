package dev.tally.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a Tally node may do on its Kafka cluster: the ACLs it needs (what {@code ./tally acls} prints), and how a
 * missing one or a refusal is told to the operator. {@link KafkaAccessCheck} asks the cluster before a node starts, so
 * that a missing permission stops the start within seconds with a message naming it, instead of a service that
 * retries and logs.
 *
 * <p>Every grant is on a prefix, never a wildcard, and nothing on the cluster resource: the namespace's topics
 * ({@code tally.}), and its application ids, consumer groups, transactional ids and the internal topics Kafka Streams
 * makes ({@code tally-}). {@code Read} and {@code Write} imply {@code Describe}, so it is not granted apart.
 */
public final class KafkaAccess {
    private KafkaAccess() {}

    /** One permission a node needs, on every resource of a type whose name starts with {@code prefix}. */
    public record Grant(ResourceType resource, String prefix, AclOperation operation, String why) {
        /** {@code Read on topics prefixed 'tally.'}. */
        public String describe() {
            return operationName(operation) + " on " + resourceName() + " prefixed '" + prefix + "'";
        }

        /** The {@code kafka-acls} command that grants it. */
        public String command(String principal, String bootstrap, String commandConfig) {
            String option = switch (resource) {
                case TOPIC -> "--topic";
                case GROUP -> "--group";
                case TRANSACTIONAL_ID -> "--transactional-id";
                default -> throw new IllegalStateException("no grant on " + resource);
            };
            return "kafka-acls.sh --bootstrap-server " + bootstrap + " --command-config " + commandConfig
                    + " --add --allow-principal " + principal + " --operation " + operationName(operation) + " "
                    + option + " " + prefix + " --resource-pattern-type prefixed";
        }

        private String resourceName() {
            return switch (resource) {
                case TOPIC -> "topics";
                case GROUP -> "consumer groups";
                case TRANSACTIONAL_ID -> "transactional ids";
                default -> resource.name().toLowerCase(Locale.ROOT);
            };
        }
    }

    /** What a node of this deployment needs, in the order the check tries them. */
    public static List<Grant> required(KafkaSettings kafka) {
        String topics = kafka.namespace().topicPrefix();
        String ids = kafka.namespace().idPrefix();
        List<Grant> grants = new ArrayList<>();
        if (kafka.createTopics()) {
            grants.add(new Grant(ResourceType.TOPIC, topics, AclOperation.CREATE, "create Tally's topics"));
        }
        grants.add(new Grant(ResourceType.TOPIC, topics, AclOperation.READ, "read Tally's topics"));
        grants.add(new Grant(ResourceType.TOPIC, topics, AclOperation.WRITE, "write Tally's topics"));
        if (!kafka.createTopics()) {
            grants.add(new Grant(ResourceType.TOPIC, topics, AclOperation.DESCRIBE_CONFIGS,
                    "check that Tally's topics are configured as it needs"));
        }
        grants.add(new Grant(ResourceType.TOPIC, ids, AclOperation.CREATE, "create Kafka Streams' changelog topics"));
        grants.add(new Grant(ResourceType.TOPIC, ids, AclOperation.READ, "restore state from the changelogs"));
        grants.add(new Grant(ResourceType.TOPIC, ids, AclOperation.WRITE, "write state to the changelogs"));
        grants.add(new Grant(ResourceType.GROUP, ids, AclOperation.READ, "join the applications' consumer groups"));
        grants.add(new Grant(ResourceType.TRANSACTIONAL_ID, ids, AclOperation.WRITE, "write in exactly-once transactions"));
        return grants;
    }

    /** Whether the operations Kafka reports on a resource (null when it reports none) lack {@code op}. */
    static boolean lacks(Set<AclOperation> allowed, AclOperation op) {
        return allowed != null && !allowed.contains(op) && !allowed.contains(AclOperation.ALL);
    }

    /** The grant of a resource type that a refusal of it names. */
    static Grant grant(KafkaSettings kafka, ResourceType type) {
        return required(kafka).stream().filter(g -> g.resource() == type).findFirst().orElseThrow();
    }

    /** The topic grants a topic of {@code prefix} must hold once it exists (creating is probed apart). */
    static List<Grant> topicGrants(KafkaSettings kafka, String prefix) {
        return required(kafka).stream().filter(g -> g.resource() == ResourceType.TOPIC && g.prefix().equals(prefix)
                && g.operation() != AclOperation.CREATE).toList();
    }

    static Env.ConfigException missing(Grant g, KafkaSettings kafka) {
        return new Env.ConfigException("Kafka at " + kafka.bootstrap() + " does not allow this node " + g.describe()
                + " (needed to " + g.why() + "); ./tally acls prints every ACL a node needs");
    }

    /**
     * Why Kafka refused {@code what}: credentials it would not take, a permission it would not grant, or no answer
     * in time — as one message an operator acts on.
     */
    public static RuntimeException refused(String what, Exception e, KafkaSettings kafka) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof AuthenticationException) {
            return new Env.ConfigException("Kafka at " + kafka.bootstrap() + " refused this node's credentials ("
                    + cause.getMessage() + "); check security.protocol and the sasl.* or ssl.* settings of "
                    + KafkaClientConfig.FILE_VARIABLE);
        }
        if (cause instanceof AuthorizationException) {
            return new Env.ConfigException("Kafka at " + kafka.bootstrap() + " refused to let this node " + what + " ("
                    + cause.getMessage() + "); ./tally acls prints every ACL a node needs");
        }
        if (cause instanceof TimeoutException || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return new Env.ConfigException("no Kafka broker at " + kafka.bootstrap() + " answered within 30 s (to "
                    + what + "); check TALLY_BOOTSTRAP and, for a secured cluster, security.protocol in "
                    + KafkaClientConfig.FILE_VARIABLE);
        }
        return new IllegalStateException("cannot " + what + " at " + kafka.bootstrap() + ": " + cause, cause);
    }

    static String operationName(AclOperation op) {
        return switch (op) {
            case DESCRIBE_CONFIGS -> "DescribeConfigs";
            case IDEMPOTENT_WRITE -> "IdempotentWrite";
            default -> op.name().charAt(0) + op.name().substring(1).toLowerCase(Locale.ROOT);
        };
    }
}
