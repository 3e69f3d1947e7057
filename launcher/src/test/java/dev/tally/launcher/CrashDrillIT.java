package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.launcher.bench.Chaos;
import dev.tally.launcher.bench.EventLog;
import dev.tally.launcher.bench.KafkaLoad;
import dev.tally.launcher.bench.LoadStats;
import dev.tally.launcher.bench.LogAudit;
import dev.tally.launcher.bench.ViewFollower;
import dev.tally.launcher.bench.ViewSnapshot;
import dev.tally.launcher.bench.Workload;
import dev.tally.processor.VoteProcessorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench's crash drill, small: votes go to {@code tally.vote-commands} at a steady pace while (1) a
 * vote-processor process is killed with SIGKILL twice and restarted, or (2) the broker itself is stopped
 * and started again. Afterwards every acknowledged vote is in the event log exactly once and every view
 * equals the log. Each test has its own broker (the shared one holds other tests' votes, which would blur
 * the audit, and test 2 stops it).
 */
class CrashDrillIT {
    private static final int VOTES = 6_000;
    private static final int PARTITIONS = 4;
    /** Batches of about 25 votes at 1,000 votes/s over 4 partitions: every kill lands among multi-vote batches. */
    private static final Duration BATCH_LINGER = Duration.ofMillis(100);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // kept when a drill fails: its logs
    Path root;
    private EmbeddedKafka broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = EmbeddedKafka.start(root.resolve("kafka"), 0);
    }

    @AfterEach
    void stopBroker() {
        broker.close();
    }

    /** The bench's settings (fraud thresholds out of the way: a Zipf head item is not a burst to hold). */
    private Map<String, String> vars() {
        Map<String, String> vars = BenchCommand.benchEnv(root.resolve("node"), broker.bootstrap());
        vars.put("TALLY_PARTITIONS", Integer.toString(PARTITIONS));
        return vars;
    }

    @Test
    void aVoteProcessorKilledTwiceMidStreamLosesAndDoublesNothing() throws Exception {
        Map<String, String> vars = vars();
        try (Chaos chaos = new Chaos(root.resolve("chaos"), vars, 2)) {
            vars.put("TALLY_PROCESSOR_URL", chaos.queryUrl());
            Env env = Env.of(vars);
            TallyNode node = start(env, EnumSet.of(TallyNode.Service.INGEST_API, TallyNode.Service.COUNT_PROJECTOR));
            try {
                chaos.start();
                KafkaSettings kafka = node.runtime().kafka();
                String group = VoteProcessorConfig.from(env).applicationId();
                Thread drill = chaos.drill(kafka, 2, 0, () -> VOTES, System.err);
                try (ViewFollower views = new ViewFollower(kafka)) {
                    LoadStats stats = new LoadStats(VOTES, Long.MAX_VALUE / 2 + System.nanoTime(), 1_000);
                    KafkaLoad.run(kafka, Workload.UNIFORM, 1, stats, views, BATCH_LINGER);
                    drill.join(TimeUnit.MINUTES.toMillis(3));
                    assertThat(chaos.kills()).as("both SIGKILLs delivered mid-stream (logs: %s)", chaos.logs()).isEqualTo(2);
                    assertExact(kafka, group, stats);
                }
            } finally {
                node.close();
            }
        }
    }

    @Test
    void aBrokerRestartUnderLoadLosesAndDoublesNothing() throws Exception {
        Env env = Env.of(vars());
        TallyNode node = start(env, EnumSet.allOf(TallyNode.Service.class));
        try {
            KafkaSettings kafka = node.runtime().kafka();
            try (ViewFollower views = new ViewFollower(kafka)) {
                LoadStats stats = new LoadStats(VOTES, Long.MAX_VALUE / 2 + System.nanoTime(), 1_000);
                Thread load = new Thread(() -> {
                    try {
                        KafkaLoad.run(kafka, Workload.ZIPF, 1, stats, views, BATCH_LINGER);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "crash-drill-load");
                load.start();
                while (stats.acknowledged() < VOTES / 3) {
                    Thread.sleep(20);
                }
                int port = broker.port();
                broker.close();
                Thread.sleep(3_000);
                broker = EmbeddedKafka.start(root.resolve("kafka"), port);
                load.join(TimeUnit.MINUTES.toMillis(3));
                assertThat(stats.failed()).as("the producers ride out the restart: %s", stats.firstError()).isZero();
                assertExact(kafka, VoteProcessorConfig.from(env).applicationId(), stats);
            }
        } finally {
            node.close();
        }
    }

    private static TallyNode start(Env env, EnumSet<TallyNode.Service> services) throws InterruptedException {
        TallyNode node = TallyNode.start(env, services);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!node.ready() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(node.ready()).as("the in-process services RUNNING within 60 s").isTrue();
        return node;
    }

    /** Every acknowledged vote once in the log; every item's view equal to the log's totals. */
    private static void assertExact(KafkaSettings kafka, String group, LoadStats stats)
            throws Exception {
        assertThat(stats.acknowledged()).isEqualTo(VOTES);
        assertThat(EventLog.awaitProcessed(kafka, group, Duration.ofMinutes(3))).as("every command processed").isTrue();
        LogAudit audit = EventLog.read(kafka, PARTITIONS);
        LogAudit.Tallies tallies = audit.tallies(stats.acknowledged());
        System.out.printf("CrashDrillIT: acknowledged %d, commands in the topic %d, events %d, counted %d, lost %d,"
                        + " double-counted %d%n", stats.acknowledged(), Chaos.commandsWritten(kafka), audit.events(),
                tallies.counted(), tallies.lost(), tallies.doubleCounted());
        assertThat(Chaos.commandsWritten(kafka)).as("the votes travelled in batches of several").isLessThan(VOTES / 4);
        assertThat(tallies.lost()).as("lost").isZero();
        assertThat(tallies.doubleCounted()).as("double-counted").isZero();
        assertThat(tallies.counted()).isEqualTo(VOTES);
        ViewSnapshot views = ViewSnapshot.readCaughtUp(kafka, PARTITIONS, audit.required(), Duration.ofMinutes(2));
        assertThat(views.mismatches(audit.totals())).as("views equal to the log").isEmpty();
    }
}
