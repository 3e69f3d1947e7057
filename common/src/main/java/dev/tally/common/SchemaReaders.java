package dev.tally.common;

import dev.tally.schema.SchemaReader;
import dev.tally.schemas.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The format guard between the writer of a topic and its readers, so the ingest API never acknowledges a
 * command in a format a processor cannot read (a newer API in front of an older processor, mid-upgrade).
 *
 * <p>Every running instance of an application that reads a topic {@linkplain #advertise advertises} the
 * fingerprints of every writer schema it decodes to {@code tally.schema-readers} (compacted, keyed by
 * {@code application/instance/topic}): at start and every {@link #REFRESH}. A writer {@linkplain #follow
 * follows} that topic and, before it appends, asks {@link #cannotRead}: a reader heard from within
 * {@link #LIVE} that does not list the writer's fingerprint refuses the append, and the API answers 503
 * instead of 202. An instance not heard from for {@link #LIVE} (stopped, decommissioned) no longer counts;
 * one that comes back advertises again at its start, before it reads anything.
 *
 * <p>The rule, {@link #unable}:
 * <table>
 *   <caption>Whether a writer may append in a schema</caption>
 *   <tr><th>readers of the topic heard from within {@link #LIVE}</th><th>append</th></tr>
 *   <tr><td>none</td><td>yes (nothing runs yet that could disagree; a reader that starts later is
 *       newer or the same build)</td></tr>
 *   <tr><td>every one lists the writer's fingerprint</td><td>yes</td></tr>
 *   <tr><td>any one does not</td><td>no, naming it</td></tr>
 * </table>
 */
public final class SchemaReaders implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchemaReaders.class);
    static final Duration REFRESH = Duration.ofMinutes(1);
    static final Duration LIVE = Duration.ofMinutes(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final KeyedView<SchemaReader> readers;
    private final Clock clock;

    SchemaReaders(KeyedView<SchemaReader> readers, Clock clock) {
        this.readers = readers;
        this.clock = clock;
    }

    /**
     * Reads {@code tally.schema-readers} to its end before it returns (so the first append is already
     * guarded), then follows it on a daemon thread.
     */
    public static SchemaReaders follow(KafkaSettings kafka) {
        CompactedTopicView<SchemaReader> view = new CompactedTopicView<>(kafka, Topics.SCHEMA_READERS);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            while (!view.caughtUp()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + kafka.topic(Topics.SCHEMA_READERS).name() + " took over "
                            + TIMEOUT.toSeconds() + " s");
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            view.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + kafka.topic(Topics.SCHEMA_READERS).name(), e);
        } catch (RuntimeException e) {
            view.close();
            throw e;
        }
        return new SchemaReaders(view, Clock.systemUTC());
    }

    /**
     * Why a record of {@code topic} written in the schema with {@code fingerprint} must not be appended
     * now: the reader that cannot decode it; empty if every live reader can.
     */
    public Optional<String> cannotRead(String topic, long fingerprint) {
        Instant now = clock.instant();
        return unable(readers.snapshot().values(), topic, fingerprint, now).map(r -> r.getApplication() + " instance "
                + r.getInstance() + " (heard from " + Duration.between(r.getRefreshedAt(), now).toSeconds()
                + " s ago) cannot read this version's " + topic + " records; upgrade it first");
    }

    /** The rule of the class Javadoc: the first live reader of {@code topic} that does not list the fingerprint. */
    static Optional<SchemaReader> unable(Collection<SchemaReader> readers, String topic, long fingerprint, Instant now) {
        Instant liveSince = now.minus(LIVE);
        return readers.stream()
                .filter(r -> r.getTopic().equals(topic) && r.getRefreshedAt().isAfter(liveSince))
                .filter(r -> !r.getFingerprints().contains(fingerprint))
                .findFirst();
    }

    /** The key of one reader's entry. */
    static String key(String application, String instance, String topic) {
        return application + "/" + instance + "/" + topic;
    }

    /**
     * Advertises that this instance reads each topic of {@code reads} in the schemas with those
     * fingerprints: once now, waiting for the broker's acknowledgement (a reader must be known before it
     * reads), then every {@link #REFRESH} until closed.
     */
    public static AutoCloseable advertise(KafkaSettings kafka, String application, String instance,
                                          Map<String, Set<Long>> reads) {
        var topic = kafka.topic(Topics.SCHEMA_READERS);
        var producer = new KafkaProducer<>(kafka.producerProps("tally-schema-reader-" + application, TIMEOUT),
                topic.keySerde().serializer(), topic.valueSerde().serializer());
        Supplier<List<Future<RecordMetadata>>> write = () -> {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            Instant now = Instant.now();
            reads.forEach((read, fingerprints) -> sent.add(producer.send(new ProducerRecord<>(topic.name(),
                    key(application, instance, read), new SchemaReader(application, instance, read,
                    new ArrayList<>(fingerprints), now)), (md, e) -> {
                        if (e != null) {
                            LOG.warn("could not advertise what {} reads on {}: {}", application, read, e.toString());
                        }
                    })));
            return sent;
        };
        try {
            for (Future<RecordMetadata> sent : write.get()) {
                sent.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            producer.close(Duration.ZERO);
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot advertise what " + application + " reads to " + topic.name()
                    + " (a reader must be known before it reads): " + cause, cause);
        } catch (InterruptedException e) {
            producer.close(Duration.ZERO);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while advertising what " + application + " reads", e);
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tally-schema-reader-" + application);
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(write::get, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        return () -> {
            timer.shutdownNow();
            producer.close(TIMEOUT);
        };
    }

    @Override
    public void close() {
        if (readers instanceof AutoCloseable followed) {
            try {
                followed.close();
            } catch (Exception e) {
                LOG.warn("closing the view of the schema readers: {}", e.toString());
            }
        }
    }
}
