package dev.tally.schemas;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The name a Tally deployment gives everything it owns on a Kafka cluster, so that several deployments (staging
 * and production, two products) share one cluster without seeing each other: topics are {@code <namespace>.<name>}
 * ({@code tally.vote-events}), and application ids, consumer groups, transactional ids and the internal topics Kafka
 * Streams creates all start with {@code <namespace>-} ({@code tally-vote-processor}). Those two prefixes are what
 * a deployment's ACLs grant.
 *
 * <p>A namespace is lower-case letters, digits and underscores, starting with a letter: no {@code .} or {@code -},
 * so no namespace's prefix can match another's names ({@code tally-} never matches {@code tally_staging-…}).
 *
 * @param value the namespace, e.g. {@code tally}
 */
public record Namespace(String value) {
    private static final Pattern VALID = Pattern.compile("[a-z][a-z0-9_]{0,31}");
    /** The namespace of a deployment that names none: the topic names of the catalogue ({@link Topics}). */
    public static final Namespace DEFAULT = new Namespace("tally");

    public Namespace {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException("a namespace is 1 to 32 lower-case letters, digits and underscores,"
                    + " starting with a letter (no '.' or '-'): " + value);
        }
    }

    /** {@code topic} as this namespace names it: the catalogue's topic with this namespace in front of its name. */
    public <K, V> Topic<K, V> topic(Topic<K, V> topic) {
        return new Topic<>(topicPrefix() + topic.localName(), topic.keySerde(), topic.valueSerde(), topic.compacted(),
                topic.retentionMs());
    }

    /** Every topic of the catalogue, as this namespace names them. */
    public List<Topic<?, ?>> topics() {
        return Topics.ALL.stream().<Topic<?, ?>>map(this::topic).toList();
    }

    /** What every topic of this namespace starts with: {@code tally.}. */
    public String topicPrefix() {
        return value + ".";
    }

    /** What every application id, consumer group, transactional id and Streams-internal topic starts with: {@code tally-}. */
    public String idPrefix() {
        return value + "-";
    }

    /** An application id, consumer group or transactional id of this namespace: {@code tally-<name>}. */
    public String id(String name) {
        return idPrefix() + name;
    }

    @Override
    public String toString() {
        return value;
    }
}
