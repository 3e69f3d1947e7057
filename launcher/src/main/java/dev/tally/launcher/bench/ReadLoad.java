package dev.tally.launcher.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The read load beside the votes: {@value #THREADS} threads issuing {@code GET /v1/votes/post/<item>}
 * (items drawn from the workload's distribution, anonymous), paced together at a fixed rate. Each latency
 * is measured from the moment the read was due, not from when it was sent, so a stalled server shows up
 * in the percentiles instead of silently slowing the load (no coordinated omission).
 */
public final class ReadLoad implements AutoCloseable {
    private static final int THREADS = 4;

    private final Latencies latencies = new Latencies();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    public ReadLoad(String baseUrl, Workload workload, int readsPerSecond) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        long intervalNanos = readsPerSecond <= 0 ? 0 : THREADS * 1_000_000_000L / readsPerSecond;
        long start = System.nanoTime();
        for (int t = 0; t < (readsPerSecond <= 0 ? 0 : THREADS); t++) {
            long offset = t * intervalNanos / THREADS;
            SplittableRandom random = new SplittableRandom(0x12eadL + t);
            Thread thread = new Thread(() -> {
                for (long due = start + offset; running; due += intervalNanos) {
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    read(http, URI.create(baseUrl + "/v1/votes/" + Workload.ITEM_TYPE + "/" + workload.item(random)), due);
                }
            }, "bench-reader-" + t);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    private void read(HttpClient http, URI uri, long due) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build();
        try {
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            latencies.recordNanos(System.nanoTime() - due);
            reads.incrementAndGet();
            if (response.statusCode() != 200) {
                errors.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } catch (Exception e) {
            errors.incrementAndGet();
        }
    }

    public Latencies latencies() {
        return latencies;
    }

    public long reads() {
        return reads.get();
    }

    public long errors() {
        return errors.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(15_000);
        }
    }
}
