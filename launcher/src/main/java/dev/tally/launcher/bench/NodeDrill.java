package dev.tally.launcher.bench;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.processor.VoteProcessorConfig;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.projector.rankings.RankingsConfig;
import dev.tally.projector.reconcile.Progress;
import dev.tally.projector.reconcile.Reconciler;
import dev.tally.projector.reconcile.Report;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The whole-node crash drill: {@code ./tally up} — broker, all four services — runs as a child process
 * and is killed with SIGKILL {@code kills} times while paced votes arrive over HTTP, then started again on
 * the same data directory. Each restart is timed from the new process to {@code /readyz} answering 200.
 * Votes the node did not acknowledge (it was down, or answered 503) are sent again at the end until it
 * does — set mode, so a repeat of a vote that was applied changes nothing — which makes every vote
 * acknowledged and the audit exact: each must be in the event log once ({@code lost},
 * {@code double_counted}), the reconcile must find the views equal to the log ({@code drift}), and every ranked
 * list must be the one the log gives ({@code ranked_lists_differing}; -1 when the node keeps none).
 *
 * <p>The soak ({@link #soak}) runs the same node without kills: paced votes over a million items straight
 * into {@code tally.vote-commands}, the node's resident memory sampled every 10 s, the same audit at the end.
 */
public final class NodeDrill implements AutoCloseable {
    /**
     * What the drill asks for: kills, the paced HTTP rate, seconds of load between a node's readiness and its kill,
     * and votes put in the log before the first kill ({@link #preload}).
     */
    public record Plan(int kills, int rate, double minUpSeconds, double maxUpSeconds, long preload) {}

    /** What it found. Restart times in seconds; {@code ready} false if some restart never got ready. */
    public record Result(int kills, double freshStartSeconds, List<Double> restartSeconds, boolean ready,
                         long preloaded, long votes, long acknowledgedUnderLoad, long sentAgain, long events, long lost,
                         long doubleCounted, long drift, int listsDiffering) {
        public boolean exact() {
            return ready && lost == 0 && doubleCounted == 0 && drift == 0 && listsDiffering <= 0 && acknowledgedUnderLoad > 0;
        }

        public double slowestRestart() {
            return restartSeconds.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        }

        public double medianRestart() {
            List<Double> sorted = restartSeconds.stream().sorted().toList();
            return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
        }

        public String toJson() {
            return String.format(Locale.ROOT, "{\"kills\":%d,\"fresh_start_s\":%.1f,\"restart_s\":{\"median\":%.1f,"
                            + "\"max\":%.1f,\"all\":%s},\"every_restart_ready\":%b,\"preloaded\":%d,\"votes\":%d,"
                            + "\"acknowledged_under_load\":%d,\"sent_again\":%d,\"events\":%d,\"lost\":%d,\"double_counted\":%d,"
                            + "\"reconcile_drift\":%d,\"ranked_lists_differing\":%d}",
                    kills, freshStartSeconds, medianRestart(), slowestRestart(),
                    restartSeconds.stream().map(d -> String.format(Locale.ROOT, "%.1f", d)).toList(), ready, preloaded, votes,
                    acknowledgedUnderLoad, sentAgain, events, lost, doubleCounted, drift, listsDiffering);
        }
    }

    private final ChildNode node;

    /**
     * @param env the node's settings (secret, fraud thresholds out of the way, profile); the drill adds its
     *            data directory and ports
     */
    public NodeDrill(Path dir, Map<String, String> env) throws IOException {
        this.node = new ChildNode(dir, env);
    }

    /** The node's vote-processor's application id: its group, whose committed offsets say what it has processed. */
    private String processorGroup() {
        return VoteProcessorConfig.from(Env.of(node.env())).applicationId();
    }

    /** The node's count-projector's application id. */
    private String projectorGroup() {
        return CountProjectorConfig.from(Env.of(node.env())).applicationId();
    }

    /** The node's Kafka, for the audit. */
    public KafkaSettings kafka() {
        return node.kafka();
    }

    public Result run(Plan plan, Workload workload, PrintStream err) throws Exception {
        node.start();
        double fresh = node.awaitReady();
        if (fresh < 0) {
            return new Result(0, -1, List.of(), false, 0, 0, 0, 0, 0, 0, 0, 0, -1);
        }
        Path archive = ChildTally.nodeArchive();
        err.printf("drill: node ready in %.1f s (log %s; %s)%n", fresh, node.log(0), archive == null
                ? "no class-data archive yet: ./tally up writes one as it stops" : "classes from " + archive);
        long preloaded = plan.preload() > 0 ? preload(plan.preload(), err) : 0;
        List<Double> restarts = new ArrayList<>();
        boolean ready = true;
        // no vote→visible sampling: the drill measures restarts and the audit, not latency
        LoadStats stats = new LoadStats(0, Long.MAX_VALUE / 4, Long.MAX_VALUE / 2 + System.nanoTime(), plan.rate(), false);
        try (HttpDriver http = new HttpDriver(node.baseUrl(), 32, "drill-http")) {
            Thread load = new Thread(() -> {
                try {
                    HttpLoad.run(http, workload, 0, stats, null);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    stats.crashed(e);
                }
            }, "drill-load");
            load.start();
            SplittableRandom random = new SplittableRandom(0xD1L);
            for (int k = 1; k <= plan.kills() && ready; k++) {
                double up = plan.minUpSeconds() + random.nextDouble() * (plan.maxUpSeconds() - plan.minUpSeconds());
                Thread.sleep((long) (up * 1000));
                node.kill();
                node.start();
                double took = node.awaitReady();
                ready = took >= 0;
                restarts.add(took);
                err.printf("drill: kill %d of %d after %.1f s of load; ready again in %.1f s; %,d votes acknowledged%n",
                        k, plan.kills(), up, took, stats.acknowledged());
            }
            Thread.sleep((long) (plan.minUpSeconds() * 1000));
            stats.stop();
            load.join(TimeUnit.MINUTES.toMillis(2));
            long underLoad = stats.acknowledged();
            long sentAgain = ready ? HttpLoad.sendUntilAcknowledged(http, stats.refusedVotes(), err) : 0;
            long votes = preloaded + underLoad + stats.failed();
            if (!ready) {
                return new Result(restarts.size(), fresh, restarts, false, preloaded, votes, underLoad, 0, 0, 0, 0, 0, -1);
            }
            return audit(fresh, restarts, preloaded, votes, underLoad, sentAgain, err);
        }
    }

    /**
     * What the soak found: memory samples ({seconds since the load began, RSS, its anonymous part, its file-backed
     * part, in kB}: the heap and RocksDB's memory are anonymous, the broker's memory-mapped indexes and the class
     * archive file-backed) and the audit.
     */
    public record SoakResult(long votes, double seconds, double processedPerSecond, List<long[]> rss, long events,
                             long lost, long doubleCounted, long drift) {
        public long maxRssKb() {
            return rss.stream().mapToLong(s -> s[1]).max().orElse(0);
        }

        public String toJson() {
            return String.format(Locale.ROOT, "{\"soak_votes\":%d,\"items\":%d,\"seconds\":%.0f,\"processed_per_s\":%.0f,"
                            + "\"rss_mb\":{\"max\":%d,\"samples\":%s},\"events\":%d,\"lost\":%d,\"double_counted\":%d,"
                            + "\"reconcile_drift\":%d}", votes, Workload.CATALOGUE_ITEMS, seconds, processedPerSecond,
                    maxRssKb() / 1024, rss.stream().map(r -> "[" + r[0] + "," + r[1] / 1024 + "," + r[2] / 1024 + ","
                            + r[3] / 1024 + "]").toList(), events, lost,
                    doubleCounted, drift);
        }
    }

    /**
     * The soak: {@code votes} set-mode votes at {@code rate}/s over {@link Workload#CATALOGUE} (a million
     * items, a new voter each) produced straight to the node's {@code tally.vote-commands}, RSS sampled
     * every 10 s until every command is processed, then the audit.
     */
    public SoakResult soak(long votes, int rate, PrintStream err) throws Exception {
        node.start();
        if (node.awaitReady() < 0) {
            throw new IllegalStateException("the node did not get ready (log " + node.log(0) + ")");
        }
        KafkaSettings kafka = kafka();
        String group = processorGroup();
        LoadStats stats = new LoadStats(0, votes, Long.MAX_VALUE / 2 + System.nanoTime(), rate, false);
        long t0 = System.nanoTime();
        Thread load = new Thread(() -> {
            try {
                KafkaLoad.run(kafka, Workload.CATALOGUE, 2, stats, null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "soak-load");
        load.start();
        List<long[]> rss = new ArrayList<>();
        while (true) {
            Thread.sleep(10_000);
            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
            Map<String, Long> status = ProcessMemory.kb(Long.toString(node.pid()));
            long[] sample = {seconds, status.getOrDefault("VmRSS", -1L), status.getOrDefault("RssAnon", -1L),
                    status.getOrDefault("RssFile", -1L)};
            rss.add(sample);
            long events = Chaos.eventsWritten(kafka);
            err.printf("soak: %ds  %,d votes sent  ~%,d events  RSS %,d MB (anonymous %,d, file-backed %,d)%n", seconds,
                    stats.acknowledged(), events, sample[1] / 1024, sample[2] / 1024, sample[3] / 1024);
            if (!load.isAlive() && EventLog.awaitProcessed(kafka, group, Duration.ofMillis(1))) {
                break;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long events;
        LogAudit.Tallies tallies;
        { // let the audit's pairs go before the reconcile runs
            LogAudit log = EventLog.read(kafka, LogAudit.votesOnly());
            events = log.events();
            tallies = log.tallies(stats.acknowledged());
        }
        long drift = reconcileDrift(kafka, projectorGroup());
        return new SoakResult(stats.acknowledged(), seconds, events / seconds, rss, events, tallies.lost(),
                tallies.doubleCounted(), drift);
    }

    /**
     * {@code votes} votes produced as fast as the broker takes them straight into {@code tally.vote-commands} (a new
     * voter each, over the million-item catalogue, like the soak's), and processed, before the first kill: the log
     * and the state every restart then starts from. Their voters are not the HTTP load's (those the API hashes), so
     * the audit still expects each pair once.
     */
    private long preload(long votes, PrintStream err) throws Exception {
        KafkaSettings kafka = kafka();
        LoadStats stats = new LoadStats(0, votes, Long.MAX_VALUE / 2 + System.nanoTime(), 0, false);
        long t0 = System.nanoTime();
        KafkaLoad.run(kafka, Workload.CATALOGUE, 2, stats, null);
        if (stats.failed() > 0) {
            throw new IllegalStateException(stats.failed() + " preloaded votes were not acknowledged by the broker");
        }
        if (!EventLog.awaitProcessed(kafka, processorGroup(), Duration.ofMinutes(30))) {
            throw new IllegalStateException("the vote-processor did not process the preloaded votes within 30 minutes");
        }
        err.printf("drill: %,d votes preloaded and processed in %.0f s%n", stats.acknowledged(), (System.nanoTime() - t0) / 1e9);
        return stats.acknowledged();
    }

    private Result audit(double fresh, List<Double> restarts, long preloaded, long votes, long underLoad, long sentAgain,
                         PrintStream err) throws Exception {
        KafkaSettings kafka = kafka();
        if (!EventLog.awaitProcessed(kafka, processorGroup(), Duration.ofMinutes(3))) {
            err.println("drill: the vote-processor did not process every command within 3 minutes");
        }
        LogAudit log = EventLog.read(kafka, LogAudit.votesOnly());
        LogAudit.Tallies tallies = log.tallies(votes);
        long drift = reconcileDrift(kafka, projectorGroup());
        RankingsConfig lists = RankingsConfig.from(Env.of(node.env()));
        int differing = -1;
        if (lists.enabled()) {
            err.println("drill: the ranked lists against the event log");
            differing = ListsAudit.differing(kafka, node.baseUrl(), lists.policy(), lists.z(), err, err);
        }
        return new Result(restarts.size(), fresh, restarts, true, preloaded, votes, underLoad, sentAgain, log.events(),
                tallies.lost(), tallies.doubleCounted(), drift, differing);
    }

    /**
     * The reconcile's drift between the count views and the event log. The views catch up with the log a
     * little after it: the drift once it is 0, or as found after a minute.
     */
    public static long reconcileDrift(KafkaSettings kafka, String projectorApplicationId) throws InterruptedException {
        try (Reconciler reconciler = new Reconciler(kafka, projectorApplicationId)) {
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (true) {
                Report report = reconciler.reconcile(Progress.NONE);
                if (report.drift() == 0 || System.nanoTime() > deadline) {
                    return report.drift();
                }
                Thread.sleep(2000);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        node.close();
    }
}
