package dev.tally.launcher.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The read load beside the votes: {@code GET /v1/votes/post/<item>} (items drawn from the workload's
 * distribution, anonymous) at a fixed rate, an open loop over its own {@link HttpDriver}: each read is sent
 * when it is due and its latency is measured from then, so a stalled server shows up in the percentiles
 * instead of silently slowing the load (no coordinated omission). Its figures count from {@link #measureFromNow}, so
 * the reads of the warm-up, while the JIT compiles the read path, are not in them. A read due while
 * {@value #MAX_UNANSWERED} are unanswered is not sent but counted as {@link #dropped}: a server that cannot keep the
 * pace shows as dropped reads, not as a queue that grows until the bench runs out of memory.
 */
public final class ReadLoad implements AutoCloseable {
    static final int CONNECTIONS = 64;
    public static final int MAX_UNANSWERED = 4096;

    private volatile Figures figures = new Figures();
    private final AtomicLong unanswered = new AtomicLong();
    private final HttpDriver http;
    private final Thread pacer;
    private volatile boolean running = true;

    public ReadLoad(String baseUrl, Workload workload, int readsPerSecond) throws Exception {
        this.http = readsPerSecond <= 0 ? null : new HttpDriver(baseUrl, CONNECTIONS, "bench-reader");
        long intervalNanos = readsPerSecond <= 0 ? 0 : 1_000_000_000L / readsPerSecond;
        this.pacer = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(0x12eadL);
            long start = System.nanoTime();
            for (long n = 0; running && http != null; n++) {
                long due = start + n * intervalNanos;
                LoadStats.sleepUntil(due);
                Figures counted = figures;
                if (unanswered.get() >= MAX_UNANSWERED) {
                    counted.dropped.incrementAndGet();
                    continue;
                }
                unanswered.incrementAndGet();
                http.send(http.get("/v1/votes/" + Workload.ITEM_TYPE + "/" + workload.item(random)), due, answer -> {
                    counted.record(answer);
                    unanswered.decrementAndGet();
                });
            }
        }, "bench-read-pacer");
        pacer.setDaemon(true);
        pacer.start();
    }

    /** What the reads sent since {@link #measureFromNow} (or the start) took. */
    private static final class Figures {
        final Latencies latencies = new Latencies();
        final AtomicLong reads = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong dropped = new AtomicLong();

        void record(HttpDriver.Answer answer) {
            latencies.recordNanos(answer.latencyNanos());
            reads.incrementAndGet();
            if (answer.status() != 200) {
                errors.incrementAndGet();
            }
        }
    }

    /** From now on the figures count only the reads sent from now (the measured run's). */
    public void measureFromNow() {
        figures = new Figures();
    }

    public Latencies latencies() {
        return figures.latencies;
    }

    public long reads() {
        return figures.reads.get();
    }

    public long errors() {
        return figures.errors.get();
    }

    /** Reads that were due while {@value #MAX_UNANSWERED} were unanswered, and so not sent. */
    public long dropped() {
        return figures.dropped.get();
    }

    /** Stops sending, and waits (at most 15 s) for the reads in flight. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        pacer.join(15_000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (unanswered.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (http != null) {
            http.close();
        }
    }
}
