package dev.tally.common;

import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
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
    private final KafkaStreams streams;
    private volatile KafkaStreams.State state = KafkaStreams.State.CREATED;
    private volatile Instant since = Instant.now();
    private final long createdNanos = System.nanoTime();
    private final RestoreLog restores = new RestoreLog();
    private volatile String startSummary;

    public StreamsService(String name, Topology topology, Properties props) {
        this.name = name;
        this.streams = new KafkaStreams(topology, props);
        streams.setUncaughtExceptionHandler(e -> {
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

    public StreamsService start() {
        streams.start();
        return this;
    }

    public String name() {
        return name;
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
    }
}
