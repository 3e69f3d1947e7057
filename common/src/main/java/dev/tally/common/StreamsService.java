package dev.tally.common;

import dev.tally.schemas.Topic;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle every Tally Streams application shares: an explicit failure policy (a crashed stream
 * thread is replaced, and its tasks resume from the last committed transaction), state logging, and a
 * bounded close.
 */
public final class StreamsService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamsService.class);

    private final String name;
    private final Topology topology;
    private final Properties props;
    private final KafkaStreams streams;
    private AutoCloseable advertisement;
    private volatile KafkaStreams.State state = KafkaStreams.State.CREATED;
    private volatile Instant since = Instant.now();
    private final long createdNanos = System.nanoTime();
    private final RestoreLog restores = new RestoreLog();
    private volatile String startSummary;
    private volatile String failure;

    public StreamsService(String name, Topology topology, Properties props) {
        this.name = name;
        this.topology = topology;
        this.props = props;
        this.streams = new KafkaStreams(topology, props);
        streams.setUncaughtExceptionHandler(e -> {
            Throwable refused = refusedByKafka(e);
            if (refused != null) {
                // a replaced thread would be refused again: stop, and say why
                failure = name + " stopped: " + refused.getMessage()
                        + " (./tally acls prints every ACL a node needs)";
                LOG.error(failure);
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            LOG.error("{}: stream thread failed; replacing it", name, e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.setGlobalStateRestoreListener(restores);
        streams.setStateListener((now, before) -> {
            state = now;
            since = Instant.now();
            LOG.info("{}: {} -> {}", name, before, now);
            if (now == KafkaStreams.State.RUNNING && startSummary == null) {
                // one line per application and start: how long it took, and what it restored
                startSummary = String.format("running %.1f s after start; %s", (System.nanoTime() - createdNanos) / 1e9,
                        restores.summary());
                LOG.info("{}: {}", name, startSummary);
            }
        });
    }

    /**
     * Advertises the schemas it reads on each Tally topic its topology reads (see {@link SchemaReaders}:
     * writers then append only what it can decode), then starts.
     */
    public StreamsService start(KafkaSettings kafka) {
        advertisement = SchemaReaders.advertise(kafka, props.getProperty(StreamsConfig.APPLICATION_ID_CONFIG),
                props.getProperty(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)), reads(topology));
        streams.start();
        return this;
    }

    /** Per Tally topic the topology reads (its sources and global stores), the fingerprints it decodes. */
    public static Map<String, Set<Long>> reads(Topology topology) {
        TopologyDescription description = topology.describe();
        Stream<TopologyDescription.Source> sources = Stream.concat(
                description.subtopologies().stream().flatMap(s -> s.nodes().stream())
                        .filter(TopologyDescription.Source.class::isInstance).map(TopologyDescription.Source.class::cast),
                description.globalStores().stream().map(TopologyDescription.GlobalStore::source));
        Map<String, Set<Long>> reads = new TreeMap<>();
        sources.flatMap(source -> source.topicSet() == null ? Stream.empty() : source.topicSet().stream())
                .forEach(name -> catalogued(name).flatMap(Topic::fingerprints)
                        .ifPresent(f -> reads.put(name, f.readableFingerprints())));
        return reads;
    }

    /** The catalogue's topic a source topic is, in any namespace; none for a Streams-internal topic. */
    private static java.util.Optional<Topic<?, ?>> catalogued(String topic) {
        try {
            return java.util.Optional.of(Topics.byName(topic));
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
        }
    }

    public String name() {
        return name;
    }

    /** Kafka's refusal (credentials, an ACL) somewhere in {@code e}'s causes; null if there is none. */
    static Throwable refusedByKafka(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.kafka.common.errors.AuthorizationException
                    || t instanceof org.apache.kafka.common.errors.AuthenticationException) {
                return t;
            }
        }
        return null;
    }

    /** Why this application stopped for good (Kafka refused it), or null while it has not. */
    public String failure() {
        return failure;
    }

    public KafkaStreams streams() {
        return streams;
    }

    public boolean isRunning() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    /** How this start went ("running 2.1 s after start; restored …"), once the application first ran; else null. */
    public String startSummary() {
        return startSummary;
    }

    /** This application's state for {@code /readyz}: ready when RUNNING. */
    public Readiness readiness() {
        KafkaStreams.State now = streams.state();
        return new Readiness(name, now.name(), now == state ? since : Instant.now(), now == KafkaStreams.State.RUNNING);
    }

    @Override
    public void close() {
        // leave the group, so a restarted instance gets its tasks at once instead of after the session timeout
        CloseOptions options = CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(20));
        if (!streams.close(options)) {
            LOG.warn("{}: did not close within 20 s", name);
        }
        if (advertisement != null) {
            try {
                advertisement.close();
            } catch (Exception e) {
                LOG.warn("{}: closing its schema advertisement: {}", name, e.toString());
            }
        }
    }
}
