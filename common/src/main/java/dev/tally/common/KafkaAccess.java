package dev.tally.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a Tally node may do on its Kafka cluster: the ACLs it needs (what {@code ./tally acls} prints), and the check a
 * node makes before it starts anything, so that a missing permission stops the start within seconds with a message
 * naming it, instead of a service that retries and logs.
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

    /**
     * Checks, before anything starts, that the cluster answers, accepts this node's credentials, and grants each of
     * {@link #required}: by what Kafka reports the node may do on the namespace's topics, Streams' internal topics
     * and groups ({@code includeAuthorizedOperations}), by creating a topic with {@code validateOnly}, and by
     * describing a transactional id. A topic that does not exist yet is checked once it is created
     * ({@link #checkTopics}).
     *
     * @throws Env.ConfigException naming the first missing permission, or why the cluster could not be used
     */
    public static void check(KafkaSettings kafka) {
        try (Admin admin = Admin.create(kafka.clientProps("tally-access-check"))) {
            admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            for (Grant g : required(kafka)) {
                if (g.operation() == AclOperation.CREATE) {
                    probeCreate(admin, g, kafka);
                }
            }
            Set<String> visible = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<String> own = kafka.namespace().topics().stream().map(t -> t.name()).filter(visible::contains).toList();
            checkOperations(admin, own, kafka.namespace().topicPrefix(), kafka);
            List<String> internal = visible.stream().filter(n -> n.startsWith(kafka.namespace().idPrefix())).sorted().toList();
            checkOperations(admin, internal, kafka.namespace().idPrefix(), kafka);
            checkGroups(admin, kafka);
            checkTransactions(admin, kafka);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking access to Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw refused("check its access to Kafka", e, kafka);
        }
    }

    /** What {@link #check} could not see before they were created: every topic of the namespace. */
    public static void checkTopics(KafkaSettings kafka) {
        try (Admin admin = Admin.create(kafka.clientProps("tally-access-check"))) {
            checkOperations(admin, kafka.namespace().topics().stream().map(t -> t.name()).toList(),
                    kafka.namespace().topicPrefix(), kafka);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking access to Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw refused("check its access to Tally's topics", e, kafka);
        }
    }

    private static void probeCreate(Admin admin, Grant g, KafkaSettings kafka) throws InterruptedException, TimeoutException {
        String probe = g.prefix() + "access-check";
        try {
            admin.createTopics(List.of(new NewTopic(probe, 1, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                throw missing(g, kafka);
            }
            // anything else (a policy, a replication factor): not a permission, and nothing was created
        }
    }

    /** The topics' authorized operations, against every grant on their prefix. */
    private static void checkOperations(Admin admin, List<String> topics, String prefix, KafkaSettings kafka)
            throws ExecutionException, TimeoutException, InterruptedException {
        List<Grant> grants = required(kafka).stream()
                .filter(g -> g.resource() == ResourceType.TOPIC && g.prefix().equals(prefix)
                        && g.operation() != AclOperation.CREATE).toList();
        if (topics.isEmpty() || grants.isEmpty()) {
            return;
        }
        Map<String, TopicDescription> described;
        try {
            described = admin.describeTopics(topics, new DescribeTopicsOptions().includeAuthorizedOperations(true))
                    .allTopicNames().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                throw missing(grants.get(0), kafka); // not even Describe, which Read and Write imply
            }
            throw e;
        }
        for (Grant g : grants) {
            for (TopicDescription d : described.values()) {
                Set<AclOperation> allowed = d.authorizedOperations();
                if (allowed != null && !allowed.contains(g.operation()) && !allowed.contains(AclOperation.ALL)) {
                    throw missing(g, kafka);
                }
            }
        }
    }

    private static void checkGroups(Admin admin, KafkaSettings kafka) throws TimeoutException, InterruptedException,
            ExecutionException {
        Grant g = grant(kafka, ResourceType.GROUP);
        List<String> groups = List.of(kafka.id("vote-processor"), kafka.id("count-projector"), kafka.id("fraud-detector"));
        var described = admin.describeConsumerGroups(groups, new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true))
                .describedGroups();
        for (var group : described.values()) {
            try {
                Set<AclOperation> allowed = group.get(30, TimeUnit.SECONDS).authorizedOperations();
                if (allowed != null && !allowed.contains(AclOperation.READ) && !allowed.contains(AclOperation.ALL)) {
                    throw missing(g, kafka);
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GroupAuthorizationException) {
                    throw missing(g, kafka);
                }
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)) {
                    throw e;
                }
                // a group that does not exist yet (a first start): Kafka Streams' join is refused by name if need be
            }
        }
    }

    private static void checkTransactions(Admin admin, KafkaSettings kafka) throws TimeoutException, InterruptedException,
            ExecutionException {
        try {
            admin.describeTransactions(List.of(kafka.id("access-check"))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdAuthorizationException) {
                throw missing(grant(kafka, ResourceType.TRANSACTIONAL_ID), kafka);
            }
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TransactionalIdNotFoundException)) {
                throw e;
            }
        }
    }

    private static Grant grant(KafkaSettings kafka, ResourceType type) {
        return required(kafka).stream().filter(g -> g.resource() == type).findFirst().orElseThrow();
    }

    private static Env.ConfigException missing(Grant g, KafkaSettings kafka) {
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
