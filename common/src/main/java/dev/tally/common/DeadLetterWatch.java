package dev.tally.common;

import io.micrometer.core.instrument.Gauge;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the dead letters not replayed yet ({@link DeadLetters#pending}) every 30 s, for the
 * {@code tally_dead_letters_pending} gauge and a {@code /readyz} warning: a command the processor could
 * not read is otherwise silent, even though its sender may have been told it will be applied.
 */
public final class DeadLetterWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterWatch.class);

    private final KafkaSettings kafka;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tally-dead-letter-watch");
        t.setDaemon(true);
        return t;
    });
    private volatile long pending;
    private volatile long logged;

    public DeadLetterWatch(KafkaSettings kafka, TallyMetrics metrics) {
        this.kafka = kafka;
        Gauge.builder("tally.dead.letters.pending", this, w -> w.pending)
                .description("Records in tally.dead-letters not replayed yet (./tally dead-letters list)")
                .register(metrics.registry());
        timer.scheduleWithFixedDelay(this::count, 2, 30, TimeUnit.SECONDS);
    }

    private void count() {
        try {
            pending = DeadLetters.pending(kafka);
            if (pending > logged) {
                LOG.warn("{} dead letters in tally.dead-letters not replayed yet: ./tally dead-letters list", pending);
            }
            logged = pending;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("counting dead letters failed (the broker may be away): {}", e.toString());
        }
    }

    public long pending() {
        return pending;
    }

    /** The {@code /readyz} warning, if any. */
    public List<String> warnings() {
        long n = pending;
        return n == 0 ? List.of() : List.of(n + " dead letter" + (n == 1 ? "" : "s") + " in tally.dead-letters not "
                + "replayed: records a service could not read or process (./tally dead-letters list)");
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
