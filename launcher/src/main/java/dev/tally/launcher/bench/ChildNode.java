package dev.tally.launcher.bench;

import dev.tally.broker.FreePort;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./tally up} — broker and all four services — as a child process on a data directory of its own and free
 * ports, with {@code ./tally up}'s heap: what the crash drill kills and restarts, and what a measurement of the
 * node's own memory watches from outside.
 */
public final class ChildNode implements AutoCloseable {
    private static final Duration READY_LIMIT = Duration.ofMinutes(3);

    private final Path dir;
    private final Map<String, String> env;
    private final int httpPort;
    private final HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private Process process;
    private long startedNanos;
    private int starts;

    /** @param env the node's settings; this adds its data directory and ports */
    public ChildNode(Path dir, Map<String, String> env) throws IOException {
        this.dir = dir;
        this.httpPort = FreePort.pick();
        this.env = new HashMap<>(env);
        this.env.remove("TALLY_BOOTSTRAP"); // up runs its own broker
        this.env.put("TALLY_DATA_DIR", dir.resolve("node").toString());
        this.env.put("TALLY_HTTP_PORT", Integer.toString(httpPort));
        this.env.put("TALLY_KAFKA_PORT", Integer.toString(FreePort.pick()));
        Files.createDirectories(dir);
    }

    public Map<String, String> env() {
        return Map.copyOf(env);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** The node's Kafka. */
    public KafkaSettings kafka() {
        return KafkaSettings.from(Env.of(Map.of("TALLY_BOOTSTRAP", "127.0.0.1:" + env.get("TALLY_KAFKA_PORT"))));
    }

    public long pid() {
        return process.pid();
    }

    /** The output of the {@code start}-th start (from 0). */
    public Path log(int start) {
        return dir.resolve("up-" + start + ".log");
    }

    public void start() throws IOException {
        ProcessBuilder builder = ChildTally.command(512, "128m", "up"); // ./tally up's defaults
        builder.environment().putAll(env);
        builder.redirectErrorStream(true).redirectOutput(log(starts++).toFile());
        startedNanos = System.nanoTime();
        process = builder.start();
    }

    /** SIGKILL: no shutdown hook, no commit, no clean broker stop. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Seconds from the process start to {@code /readyz} 200, or -1 if it does not come within 3 minutes or the process dies. */
    public double awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + READY_LIMIT.toNanos();
        HttpRequest readyz = HttpRequest.newBuilder(URI.create(baseUrl() + "/readyz")).timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if (probe.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return (System.nanoTime() - startedNanos) / 1e9;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        return -1;
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }
}
