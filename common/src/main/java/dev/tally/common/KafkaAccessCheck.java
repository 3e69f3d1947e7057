package dev.tally.common;

import java.util.List;
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
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The check a node makes of its Kafka cluster before it starts anything, by asking the cluster: every grant of
 * {@link KafkaAccess#required}, so that a missing permission stops the start within seconds with a message naming it.
 */
public final class KafkaAccessCheck {
    private KafkaAccessCheck() {}

    /**
     * Checks, before anything starts, that the cluster answers, accepts this node's credentials, and grants each of
     * {@link KafkaAccess#required}: by what Kafka reports the node may do on the namespace's topics, Streams' internal topics
     * and groups ({@code includeAuthorizedOperations}), by creating a topic with {@code validateOnly}, and by
     * describing a transactional id. A topic that does not exist yet is checked once it is created
     * ({@link #checkTopics}).
     *
     * @throws Env.ConfigException naming the first missing permission, or why the cluster could not be used
     */
    public static void check(KafkaSettings kafka) {
        try (Admin admin = Admin.create(kafka.clientProps("tally-access-check"))) {
            admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            for (KafkaAccess.Grant g : KafkaAccess.required(kafka)) {
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
            throw KafkaAccess.refused("check its access to Kafka", e, kafka);
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
            throw KafkaAccess.refused("check its access to Tally's topics", e, kafka);
        }
    }

    private static void probeCreate(Admin admin, KafkaAccess.Grant g, KafkaSettings kafka) throws InterruptedException, TimeoutException {
        String probe = g.prefix() + "access-check";
        try {
            admin.createTopics(List.of(new NewTopic(probe, 1, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                throw KafkaAccess.missing(g, kafka);
            }
            // anything else (a policy, a replication factor): not a permission, and nothing was created
        }
    }

    /** The topics' authorized operations, against every grant on their prefix. */
    private static void checkOperations(Admin admin, List<String> topics, String prefix, KafkaSettings kafka)
            throws ExecutionException, TimeoutException, InterruptedException {
        List<KafkaAccess.Grant> grants = KafkaAccess.topicGrants(kafka, prefix);
        if (topics.isEmpty() || grants.isEmpty()) {
            return;
        }
        Map<String, TopicDescription> described;
        try {
            described = admin.describeTopics(topics, new DescribeTopicsOptions().includeAuthorizedOperations(true))
                    .allTopicNames().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                throw KafkaAccess.missing(grants.get(0), kafka); // not even Describe, which Read and Write imply
            }
            throw e;
        }
        for (KafkaAccess.Grant g : grants) {
            for (TopicDescription d : described.values()) {
                if (KafkaAccess.lacks(d.authorizedOperations(), g.operation())) {
                    throw KafkaAccess.missing(g, kafka);
                }
            }
        }
    }

    private static void checkGroups(Admin admin, KafkaSettings kafka) throws TimeoutException, InterruptedException,
            ExecutionException {
        KafkaAccess.Grant g = KafkaAccess.grant(kafka, ResourceType.GROUP);
        List<String> groups = List.of(kafka.id("vote-processor"), kafka.id("count-projector"), kafka.id("fraud-detector"));
        var described = admin.describeConsumerGroups(groups, new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true))
                .describedGroups();
        for (var group : described.values()) {
            try {
                if (KafkaAccess.lacks(group.get(30, TimeUnit.SECONDS).authorizedOperations(), AclOperation.READ)) {
                    throw KafkaAccess.missing(g, kafka);
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GroupAuthorizationException) {
                    throw KafkaAccess.missing(g, kafka);
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
                throw KafkaAccess.missing(KafkaAccess.grant(kafka, ResourceType.TRANSACTIONAL_ID), kafka);
            }
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TransactionalIdNotFoundException)) {
                throw e;
            }
        }
    }
}
