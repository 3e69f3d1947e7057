package dev.tally.launcher.bench;

import dev.tally.broker.FreePort;
import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * The crash drill: the vote-processor runs as separate processes ({@code ./tally vote-processor}, each
 * with its own state directory and query port, all in one consumer group), and one of them is killed
 * with SIGKILL — no shutdown hook, no commit, no goodbye to the group — K times while it
 * works through the commands, and started again on the same state directory. Kill {@code i} of
 * {@code K} comes when the processors have resolved {@code i/(K+1)} of the votes, so every kill lands
 * mid-stream; the victims alternate. Exactly-once must then still show every acknowledged vote in the
 * event log once.
 */
public final class Chaos implements AutoCloseable {
    private static final Duration RESTART_PAUSE = Duration.ofSeconds(1);
    /** How long a kill waits for its share of the commands before the drill gives up. */
    private static final Duration STALLED = Duration.ofMinutes(5);

    private final Map<String, String> env;
    private final List<Instance> instances = new ArrayList<>();
    private volatile int kills;

    /** One {@code ./tally vote-processor} child process and where it keeps its state and log. */
    private static final class Instance {
        final Path dataDir;
        final Path log;
        final int queryPort;
        Process process;

        Instance(Path dataDir, Path log, int queryPort) {
            this.dataDir = dataDir;
            this.log = log;
            this.queryPort = queryPort;
        }
    }

    /**
     * Prepares {@code count} vote-processor processes (state and logs under {@code dir}, a free query port
     * each); {@link #start} runs them with {@code env}, the same bootstrap, secret and settings as the
     * in-process services.
     */
    public Chaos(Path dir, Map<String, String> env, int count) throws IOException {
        this.env = env;
        for (int i = 0; i < count; i++) {
            Instance instance = new Instance(dir.resolve("vote-processor-" + i), dir.resolve("vote-processor-" + i + ".log"),
                    FreePort.pick());
            Files.createDirectories(instance.dataDir);
            instances.add(instance);
        }
    }

    /** Where the first process answers interactive queries: the ingest API's {@code TALLY_PROCESSOR_URL}. */
    public String queryUrl() {
        return "http://127.0.0.1:" + instances.get(0).queryPort;
    }

    public void start() throws IOException {
        for (Instance instance : instances) {
            start(instance);
        }
    }

    private void start(Instance instance) throws IOException {
        ProcessBuilder builder = ChildTally.command(256, "64m", "vote-processor", "--query-port",
                Integer.toString(instance.queryPort));
        builder.environment().putAll(env);
        builder.environment().put("TALLY_DATA_DIR", instance.dataDir.toString()); // its own log file too
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(instance.log.toFile()));
        instance.process = builder.start();
    }

    /** How many SIGKILLs were delivered so far. */
    public int kills() {
        return kills;
    }

    /** The processes' output files, to look at when a drill fails. */
    public List<Path> logs() {
        return instances.stream().map(i -> i.log).toList();
    }

    /**
     * Kills and restarts a vote-processor {@code count} times on a background thread: kill {@code i} once
     * the processors have written events for {@code i/(count+1)} of the votes after {@code base} (the event
     * log's size before the load, {@link #eventsWritten}) up to {@code base + expected} ({@code expected}
     * may change while the load runs; every bench vote is one event, and a batch carries many votes, so
     * the event log, not the command topic, measures progress). Join the returned thread before auditing.
     */
    public Thread drill(KafkaSettings kafka, int count, long base, LongSupplier expected, PrintStream err) {
        Thread t = new Thread(() -> {
            try (Admin admin = Admin.create(kafka.clientProps("tally-bench-chaos"))) {
                for (int i = 1; i <= count; i++) {
                    long giveUp = System.nanoTime() + STALLED.toNanos();
                    while ((eventsWritten(admin) - base) * (count + 1) < expected.getAsLong() * i) {
                        if (System.nanoTime() > giveUp) {
                            err.printf("%nbench: chaos: the vote-processors did not reach kill %d's share of the commands"
                                    + " within %d s; no more kills%n", i, STALLED.toSeconds());
                            return;
                        }
                        Thread.sleep(100);
                    }
                    Instance victim = instances.get((i - 1) % instances.size());
                    victim.process.destroyForcibly().waitFor(); // SIGKILL on Linux
                    kills = i;
                    err.printf("%nbench: chaos: SIGKILL vote-processor-%d (pid %d), kill %d of %d; restarting it%n",
                            instances.indexOf(victim), victim.process.pid(), i, count);
                    Thread.sleep(RESTART_PAUSE.toMillis());
                    start(victim);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw new IllegalStateException("chaos drill failed", e);
            }
        }, "bench-chaos");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Records written to {@code tally.vote-events} so far, over all partitions (its end offsets: transaction
     * markers and aborted writes included, so a kill comes a little early, never late).
     */
    public static long eventsWritten(KafkaSettings kafka) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("tally-bench-chaos"))) {
            return eventsWritten(admin);
        }
    }

    private static long eventsWritten(Admin admin) throws Exception {
        return EventLog.ends(admin, Topics.VOTE_EVENTS.name()).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Command records written to {@code tally.vote-commands} so far (each a batch of votes). */
    public static long commandsWritten(KafkaSettings kafka) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("tally-bench-chaos"))) {
            return EventLog.commandEnds(admin).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Stops every process (SIGTERM, then SIGKILL after 20 s). */
    @Override
    public void close() throws InterruptedException {
        for (Instance instance : instances) {
            if (instance.process != null) {
                instance.process.destroy();
            }
        }
        for (Instance instance : instances) {
            if (instance.process != null && !instance.process.waitFor(20, TimeUnit.SECONDS)) {
                instance.process.destroyForcibly().waitFor();
            }
        }
    }
}
