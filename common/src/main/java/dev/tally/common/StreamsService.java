package dev.tally.common;

import java.time.Duration;
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

    public StreamsService(String name, Topology topology, Properties props) {
        this.name = name;
        this.streams = new KafkaStreams(topology, props);
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("{}: stream thread failed; replacing it", name, e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.setStateListener((now, before) -> LOG.info("{}: {} -> {}", name, before, now));
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
