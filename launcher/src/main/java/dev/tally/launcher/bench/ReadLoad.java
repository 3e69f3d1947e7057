package dev.tally.launcher.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The read load beside the votes: one thread issuing {@code GET /v1/votes/post/<item>} back to back
 * (items drawn from the workload's distribution, anonymous), recording each latency.
 */
public final class ReadLoad implements AutoCloseable {
    private final Latencies latencies = new Latencies();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    public ReadLoad(String baseUrl, Workload workload) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        thread = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(0x12eadL);
            while (running) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/votes/" + Workload.ITEM_TYPE + "/"
                        + workload.item(random))).timeout(Duration.ofSeconds(10)).GET().build();
                long t0 = System.nanoTime();
                try {
                    HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
                    latencies.recordNanos(System.nanoTime() - t0);
                    reads.incrementAndGet();
                    if (response.statusCode() != 200) {
                        errors.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    errors.incrementAndGet();
                }
            }
        }, "bench-reader");
        thread.setDaemon(true);
        thread.start();
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
        thread.join(15_000);
    }
}
