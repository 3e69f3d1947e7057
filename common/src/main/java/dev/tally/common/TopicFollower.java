package dev.tally.common;

import java.time.Duration;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls a consumer on its own daemon thread and hands every batch, empty ones included, to a handler,
 * until closed. The caller assigns and positions the consumer before starting, so setup failures surface
 * in the caller; from then on the follower owns the consumer and closes it. A failed poll or batch is
 * logged and retried after {@value #BACKOFF_MS} ms (say while the broker is away). The one copy of the
 * loop that the topic views, the outcome listener and the live updates all need.
 */
public final class TopicFollower<K, V> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicFollower.class);
    private static final long BACKOFF_MS = 500;

    private final KafkaConsumer<K, V> consumer;
    private final Duration pollTimeout;
    private final Consumer<ConsumerRecords<K, V>> onBatch;
    private final String partitions; // for the log, taken before the thread owns the consumer
    private final Thread thread;
    private volatile boolean running = true;
    private boolean closed;

    private TopicFollower(KafkaConsumer<K, V> consumer, String threadName, Duration pollTimeout,
                          Consumer<ConsumerRecords<K, V>> onBatch) {
        this.consumer = consumer;
        this.pollTimeout = pollTimeout;
        this.onBatch = onBatch;
        this.partitions = consumer.assignment().toString();
        this.thread = new Thread(this::follow, threadName);
        thread.setDaemon(true);
    }

    /**
     * Starts following with a consumer that is already assigned and positioned. {@code onBatch} runs on
     * the follower thread, so it may use the consumer (e.g. its positions).
     */
    public static <K, V> TopicFollower<K, V> start(KafkaConsumer<K, V> consumer, String threadName, Duration pollTimeout,
                                                   Consumer<ConsumerRecords<K, V>> onBatch) {
        TopicFollower<K, V> follower = new TopicFollower<>(consumer, threadName, pollTimeout, onBatch);
        follower.thread.start();
        return follower;
    }

    private void follow() {
        while (running) {
            try {
                onBatch.accept(consumer.poll(pollTimeout));
            } catch (WakeupException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("{}: reading {} failed; retrying", thread.getName(), partitions, e);
                try {
                    Thread.sleep(BACKOFF_MS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Stops the thread (waiting up to 5 s for it) and closes the consumer. Safe to call more than once. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        running = false;
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(2));
    }
}
