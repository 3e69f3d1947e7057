package dev.tally.launcher;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.fraud.FraudDetectorConfig;
import dev.tally.launcher.bench.BenchResult;
import dev.tally.launcher.bench.Chaos;
import dev.tally.launcher.bench.CpuAccount;
import dev.tally.launcher.bench.EventLog;
import dev.tally.launcher.bench.HttpDriver;
import dev.tally.launcher.bench.HttpLoad;
import dev.tally.launcher.bench.KafkaLoad;
import dev.tally.launcher.bench.LoadStats;
import dev.tally.launcher.bench.LogAudit;
import dev.tally.launcher.bench.PostgresBaseline;
import dev.tally.launcher.bench.PostgresDoor;
import dev.tally.launcher.bench.ProcessMemory;
import dev.tally.launcher.bench.ReadLoad;
import dev.tally.launcher.bench.RecordAccount;
import dev.tally.launcher.bench.RequestAccount;
import dev.tally.launcher.bench.Scratch;
import dev.tally.launcher.bench.RankingBench;
import dev.tally.launcher.bench.WebhookBench;
import dev.tally.launcher.bench.StreamBench;
import dev.tally.launcher.bench.ViewFollower;
import dev.tally.launcher.bench.ViewSnapshot;
import dev.tally.launcher.bench.Workload;
import dev.tally.processor.VoteProcessorConfig;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tally bench}: starts its own embedded broker and a full Tally node in a temporary directory on
 * free ports (never touching a running {@code ./tally up}), drives votes through the Kafka-native or the
 * HTTP path with a read load beside them, then checks every acknowledged vote against the event log and
 * the views against the log. Progress on stderr; the last line on stdout is the JSON report
 * ({@link BenchResult}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        header = "Load generator and report, with every vote audited against the event log.",
        description = "Throughput, vote->visible latency, read p99, memory, and acknowledged votes checked against"
                + " the event log (lost, double_counted). Runs its own broker and node in a temporary directory on"
                + " free ports; ends with one JSON line.")
final class BenchCommand implements Callable<Integer> {
    private static final int DEFAULT_VOTES = 1_000_000;
    /**
     * The measured votes of a {@code --quick} run: some 10 s of load, long enough that the pipeline's ramp-up and
     * drain are a small share of the window and the figure is its steady rate.
     */
    private static final int QUICK_VOTES = 300_000;
    private static final int QUICK_SECONDS = 60;
    private static final int CHAOS_PROCESSES = 2;
    private static final int STREAM_RATE_SECONDS = 15;
    private static final int STREAM_RATE_PAIRS = 2;
    static final int SUSTAINED_P99_MS = 250;
    private static final int MAX_STEPS = 20;
    private static final int JIT_SETTLE_MAX_SECONDS = 120;
    private static final double WARM_JIT_SHARE = 0.10;
    private static final List<String> TUNABLES = List.of("TALLY_PARTITIONS", "TALLY_COMMIT_INTERVAL",
            "TALLY_DELTA_FLUSH_INTERVAL", "TALLY_SYNC_TIMEOUT", "TALLY_STANDBY_REPLICAS", "TALLY_COMPRESSION",
            "TALLY_ROCKSDB_MEMORY_MB", "TALLY_ROCKSDB_LOG", "TALLY_RANKED_LISTS", "TALLY_RANKING_POLICY");

    @Option(names = "--workload", defaultValue = "uniform", paramLabel = "uniform|zipf|viral|catalogue|spread|hooked",
            description = "uniform (100k items), zipf (s = 1.1 over 100k items), viral (one item), catalogue (1M items) or spread (1M items in turn) [${DEFAULT-VALUE}]")
    String workload;

    @Option(names = "--votes", paramLabel = "N", description = "votes to send [1000000; --quick: 300000]")
    Long votes;

    @Option(names = "--quick", description = "a run of about a minute: 300000 votes unless --votes, sending for at most 60 s")
    boolean quick;

    @Option(names = "--path", defaultValue = "kafka", paramLabel = "kafka|http",
            description = "kafka: commands produced straight to tally.vote-commands; http: POST /v1/votes [${DEFAULT-VALUE}]")
    String path;

    // a pool of a few connections per core, as a deployment would use (a backend process per connection):
    // docs/decisions/0013-postgres-baseline.md
    @Option(names = "--clients", defaultValue = "8", paramLabel = "N",
            description = "the PostgreSQL baseline's connections [${DEFAULT-VALUE}]")
    int clients;

    @Option(names = "--connections", defaultValue = "1000", paramLabel = "N", description = "HTTP path: keep-alive "
            + "connections, all opened before the first vote and used in turn; unpaced, at most this many votes "
            + "unanswered at once [${DEFAULT-VALUE}]")
    int connections;

    @Option(names = "--find-rate", description = "HTTP path: after the warm-up, paced steps of --step-seconds from "
            + "--rate (default 500) up by 25%% each, until a step's p99 answer latency (from each vote's due time) "
            + "passes " + SUSTAINED_P99_MS + " ms, a vote fails or the rate is not kept; reports the highest step that held")
    boolean findRate;

    @Option(names = "--step-seconds", defaultValue = "15", paramLabel = "S",
            description = "--find-rate: seconds per step [${DEFAULT-VALUE}]")
    int stepSeconds;

    @Option(names = "--producers", defaultValue = "1", paramLabel = "N", description = "Kafka path: sender threads, each packing its own command batches [${DEFAULT-VALUE}: one batcher, as the ingest API has]")
    int producers;

    @Option(names = "--linger-ms", defaultValue = "" + KafkaLoad.LINGER_MS, paramLabel = "MS", description = "Kafka path: how "
            + "long a partition's command batch waits for more votes after its first [${DEFAULT-VALUE}]")
    int lingerMs;

    @Option(names = "--networks", defaultValue = "0", paramLabel = "N",
            description = "Kafka path: every command carries one of N network buckets, as every HTTP vote does "
                    + "(the fraud-detector's network watch then counts each; 0: none, as from a trusted upstream "
                    + "service) [${DEFAULT-VALUE}]")
    int networks;

    @Option(names = "--warmup", defaultValue = "30000", paramLabel = "N",
            description = "votes per warm-up round, each sent and processed before the measured run, in rounds until "
                    + "one compiles for less than " + (int) (WARM_JIT_SHARE * 100) + "%% of its time (at most "
                    + "--warmup-rounds); excluded from every figure except the lost/double-counted audit (0: none) "
                    + "[${DEFAULT-VALUE}]")
    long warmup;

    @Option(names = "--warmup-rounds", defaultValue = "40", paramLabel = "N",
            description = "the most warm-up rounds [${DEFAULT-VALUE}]")
    int warmupRounds;

    @Option(names = "--max-seconds", paramLabel = "S", description = "stop sending after S seconds [none; --quick: 60]")
    Integer maxSeconds;

    @Option(names = "--rate", defaultValue = "0", paramLabel = "VOTES_PER_S",
            description = "pace the load at this many votes/s (0: as fast as acknowledgements come) [${DEFAULT-VALUE}]")
    long rate;

    @Option(names = "--read-rate", defaultValue = "200", paramLabel = "READS_PER_S",
            description = "the read load beside the votes, paced at this many GETs/s [${DEFAULT-VALUE}]")
    int readRate;

    @Option(names = "--latency-log", paramLabel = "FILE", description = "write every sampled vote of the measured "
            + "run to FILE: when it was due (seconds of JVM uptime, the clock of -Xlog:gc*:…:uptime), its vote→visible "
            + "in ms and its partition")
    Path latencyLog;

    @Option(names = "--baseline", paramLabel = "postgres", description = "after the Tally run, the same votes on "
            + "the relational design (one transaction per vote) on a throwaway local PostgreSQL (installed with apt "
            + "if missing), over --clients connections; with --path http, behind Javalin and a HikariCP pool of --clients"
            + " connections, under the same HTTP load")
    String baseline;

    @Option(names = "--watchers", paramLabel = "N", description = "instead of the vote load: N live streams on one item"
            + " of ./tally up (a child process), a burst of --burst votes on it within two seconds (how soon every stream"
            + " shows the final count), the node's memory per stream, and the HTTP vote rate with the streams open"
            + " against without them")
    Integer watchers;

    @Option(names = "--burst", defaultValue = "100", paramLabel = "VOTES",
            description = "with --watchers: votes on the watched item, each a new voter [${DEFAULT-VALUE}]")
    int burst;

    @Option(names = "--chaos", paramLabel = "K", description = "run the vote-processor as two separate processes "
            + "and SIGKILL one of them K times mid-stream, restarting it each time")
    Integer chaos;

    @Option(names = "--rankings", paramLabel = "ITEMS", description = "instead of the vote load: rank ITEMS items "
            + "(two votes each), time pages of 25 in every sort, then vote → moved in every list under a paced load of"
            + " --rate votes/s [10000] for --max-seconds [30]")
    Integer rankings;

    @Option(names = "--webhooks", paramLabel = "SUBSCRIBERS", description = "instead of the vote load: SUBSCRIBERS webhook "
            + "subscriptions sharing " + Workload.HOOKED_ITEMS + " items, one receiver here; the Kafka-path rate with them "
            + "active against paused, then vote → delivered at --rate (5000) for --max-seconds (60)")
    Integer webhooks;

    @Option(names = "--coalesce-ms", defaultValue = "1000", paramLabel = "MS", description = "with --webhooks: each "
            + "subscription's coalesce_ms [${DEFAULT-VALUE}]")
    int coalesceMs;

    @Option(names = "--check", description = "with --rankings: afterwards verify the lists against the log, rebuild them "
            + "under policy all over the whole log and verify those, each timed")
    boolean check;

    @Override
    public Integer call() throws Exception {
        PrintStream err = System.err;
        if (watchers != null) {
            return streams(err);
        }
        if (rankings != null) {
            return rankings(err);
        }
        if (webhooks != null) {
            return webhooks(err);
        }
        Workload load = Workload.parse(workload);
        String via = path.strip().toLowerCase(Locale.ROOT);
        if (!via.equals("kafka") && !via.equals("http")) {
            err.println("bench: --path must be kafka or http, was '" + path + "'");
            return 2;
        }
        if (baseline != null && !baseline.strip().equalsIgnoreCase("postgres")) {
            err.println("bench: --baseline must be postgres, was '" + baseline + "'");
            return 2;
        }
        if (clients < 1 || producers < 1 || connections < 1) {
            err.println("bench: --clients, --connections and --producers must be at least 1");
            return 2;
        }
        if (findRate && (!via.equals("http") || stepSeconds < 1 || chaos != null)) {
            err.println("bench: --find-rate needs --path http, --step-seconds of at least 1 and no --chaos");
            return 2;
        }
        if (baseline != null && clients > 190) {
            err.println("bench: --clients must be at most 190 with --baseline (PostgreSQL's max_connections is 200), was " + clients);
            return 2;
        }
        if (warmup < 0 || warmupRounds < 1) {
            err.println("bench: --warmup must be at least 0 and --warmup-rounds at least 1");
            return 2;
        }
        if (chaos != null && chaos < 1) {
            err.println("bench: --chaos must be at least 1");
            return 2;
        }
        long target = votes != null ? votes : quick ? QUICK_VOTES : DEFAULT_VOTES;
        if (target < 1) {
            err.println("bench: --votes must be at least 1");
            return 2;
        }
        Integer seconds = maxSeconds != null ? maxSeconds : quick ? Integer.valueOf(QUICK_SECONDS) : null;
        quietFileLog();

        BenchResult result = tallyRun(err, load, via, target, seconds);
        if (result == null) {
            return 1;
        }
        boolean exact = result.exact() && result.acknowledged() > 0;
        if (chaos != null && result.chaosKills() != chaos.intValue()) {
            err.println("bench: chaos: " + result.chaosKills() + " of " + chaos + " kills delivered");
            exact = false;
        }
        if (baseline != null && via.equals("http")) {
            PostgresDoor.Run door = PostgresDoor.runLocal(load, result.warmupVotes(), target, clients, connections, rate,
                    seconds, err);
            PostgresBaseline.Result pg = door.result();
            if (!pg.exact()) {
                err.println("bench: postgres counters differ from its votes table: " + pg);
            }
            double ratio = pg.votesPerSecond() == 0 ? 0 : (double) result.ackVotesPerSecond() / pg.votesPerSecond();
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("votes_per_s", pg.votesPerSecond());
            figures.put("answer_p50_ms", door.answerP50Ms());
            figures.put("answer_p99_ms", door.answerP99Ms());
            figures.put("failed", pg.failed());
            figures.put("tally_answered_to_postgres", Math.round(ratio * 100) / 100.0);
            figures.put("what_it_leaves_out", "identity hashing, limits, idempotency, fraud rules, the event log");
            err.printf("bench: over HTTP, Tally answered %,d votes/s (p99 %.0f ms), the PostgreSQL door %,d (p99 %.0f ms):"
                    + " %.2f×%n", result.ackVotesPerSecond(), (Double) result.http().get("answer_p99_ms"), pg.votesPerSecond(),
                    door.answerP99Ms(), ratio);
            result = result.withPostgres(pg.votesPerSecond()).withHttp("postgres", figures);
            exact &= pg.exact();
        } else if (baseline != null) {
            PostgresBaseline.Result pg = PostgresBaseline.runLocal(load, result.warmupVotes(), target, clients, seconds, err);
            if (!pg.exact()) {
                err.println("bench: postgres counters differ from its votes table: " + pg);
            }
            result = result.withPostgres(pg.votesPerSecond());
            exact &= pg.exact();
        }
        System.out.println(result.toJson());
        System.out.flush();
        return exact ? 0 : 1;
    }

    /** {@code --rankings}: the live ranked lists at catalogue scale ({@link RankingBench}). */
    private int rankings(PrintStream err) throws Exception {
        if (rankings < 1 || rankings > Workload.CATALOGUE_ITEMS) {
            err.println("bench: --rankings must be from 1 to " + Workload.CATALOGUE_ITEMS);
            return 2;
        }
        quietFileLog();
        Path dir = Files.createTempDirectory("tally-rankings-");
        try {
            RankingBench.Result result = RankingBench.run(dir, benchEnv(dir, null), rankings, rate > 0 ? (int) rate : 10_000,
                    maxSeconds != null ? maxSeconds : 30, check, err);
            System.out.println(result.toJson());
            return result.probes() > 0 ? 0 : 1;
        } finally {
            Scratch.deleteQuietly(dir);
        }
    }

    /** {@code --webhooks}: signed webhooks at subscriber scale ({@link WebhookBench}). */
    private int webhooks(PrintStream err) throws Exception {
        if (webhooks < 1 || webhooks > Workload.HOOKED_ITEMS / 10 || coalesceMs < 0 || coalesceMs > 60_000) {
            err.println("bench: --webhooks must be from 1 to " + Workload.HOOKED_ITEMS / 10 + " and --coalesce-ms from 0 to 60000");
            return 2;
        }
        quietFileLog();
        Path dir = Files.createTempDirectory("tally-webhooks-");
        try {
            WebhookBench.Result result = WebhookBench.run(dir, benchEnv(dir, null), webhooks, rate > 0 ? (int) rate : 5_000,
                    maxSeconds != null ? maxSeconds : 60, coalesceMs, err);
            System.out.println(result.toJson());
            return result.probesSeen() > 0 && result.seqViolations() == 0 ? 0 : 1;
        } finally {
            Scratch.deleteQuietly(dir);
        }
    }

    /** {@code --watchers}: live streams at audience scale ({@link StreamBench}). */
    private int streams(PrintStream err) throws Exception {
        if (watchers < 1 || burst < 1) {
            err.println("bench: --watchers and --burst must be at least 1");
            return 2;
        }
        Path dir = Files.createTempDirectory("tally-streams-");
        try {
            StreamBench.Result result = StreamBench.run(dir, benchEnv(dir, null), watchers, burst, STREAM_RATE_SECONDS,
                    STREAM_RATE_PAIRS, err);
            System.out.println(result.toJson());
            return result.sawFinal() == result.opened() && result.opened() > 0 ? 0 : 1;
        } finally {
            Scratch.deleteQuietly(dir);
        }
    }

    /** The Tally run: its own broker and node in a temp dir, the load, the audit; null if the node never got ready. */
    private BenchResult tallyRun(PrintStream err, Workload load, String via, long target, Integer seconds) throws Exception {
        Path dir = Files.createTempDirectory("tally-bench-");
        long t0 = System.nanoTime();
        err.println("bench: starting a broker and a Tally node in " + dir);
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
        TallyNode node = null;
        Chaos drill = null;
        try {
            Map<String, String> vars = benchEnv(dir, kafka.bootstrap());
            EnumSet<TallyNode.Service> services = EnumSet.allOf(TallyNode.Service.class);
            if (chaos != null) {
                services.remove(TallyNode.Service.VOTE_PROCESSOR);
                drill = new Chaos(dir.resolve("chaos"), vars, CHAOS_PROCESSES);
                vars.put("TALLY_PROCESSOR_URL", drill.queryUrl());
            }
            Env env = Env.of(vars);
            node = TallyNode.start(env, services);
            if (drill != null) {
                drill.start();
                err.println("bench: chaos: " + CHAOS_PROCESSES + " vote-processor processes, logs in " + drill.logs());
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!node.ready() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (!node.ready()) {
                err.println("bench: the node was not ready within 120 s");
                return null;
            }
            err.printf("bench: ready in %.1f s; %s %s, %,d votes%s%n", (System.nanoTime() - t0) / 1e9, via,
                    load.cliName(), target, (seconds == null ? "" : " (sending for at most " + seconds + " s)")
                    + (rate > 0 ? " at " + rate + " votes/s" : ""));
            return run(err, env, node, drill, load, via, target, seconds);
        } finally {
            if (drill != null) {
                drill.close();
            }
            if (node != null) {
                node.close();
            }
            kafka.close();
            Scratch.deleteQuietly(dir);
        }
    }

    private BenchResult run(PrintStream err, Env env, TallyNode node, Chaos drill, Workload load, String via, long target,
                            Integer seconds) throws Exception {
        KafkaSettings kafka = node.runtime().kafka();
        int partitions = commandPartitions(kafka);
        String base = "http://127.0.0.1:" + node.httpPort();
        long sendEnd;
        long visibleEnd;
        LogAudit audit;
        List<String> mismatches;
        boolean processed;
        long behind;
        try (ViewFollower follower = new ViewFollower(kafka, latencyLog != null); ReadLoad reads = new ReadLoad(base, load, readRate);
             HttpDriver http = via.equals("http") ? new HttpDriver(base, connections, "bench-http") : null) {
            String group = VoteProcessorConfig.from(env).applicationId();
            LoadStats warm = LoadStats.total(List.of());
            if (warmup > 0) { // the JIT compiles the hot paths here, not inside the measured run
                warm = warmUp(err, kafka, http, load, follower, group);
                awaitJitQuiet(err);
                if (http != null) {
                    http.open(); // the wait outlasted the idle timeout
                }
            }
            reads.measureFromNow();
            follower.measureFromNow();
            RecordAccount records = new RecordAccount(kafka).start();
            RequestAccount requests = new RequestAccount().start();
            CpuAccount cpu = new CpuAccount().start();
            long start = System.nanoTime();
            long sendDeadline = seconds == null ? Long.MAX_VALUE / 2 + start : start + Duration.ofSeconds(seconds).toNanos();
            List<Map<String, Object>> steps = new ArrayList<>();
            LoadStats paced = new LoadStats(warm.target(), target, sendDeadline, rate, true);
            AtomicBoolean sent = new AtomicBoolean();
            Thread kills = drill == null ? null : drill.drill(kafka, chaos, Chaos.eventsWritten(kafka),
                    () -> sent.get() ? paced.acknowledged() : paced.target(), err);
            LoadStats stats;
            if (findRate) {
                stats = LoadStats.total(rateSearch(err, http, load, follower, steps, warm.target()));
            } else {
                stats = paced;
                Thread progress = stats.progressLine(err, "bench " + via + " " + load.cliName(), start);
                try {
                    send(kafka, http, load, stats, follower);
                } finally {
                    progress.interrupt();
                    progress.join();
                }
            }
            sendEnd = System.nanoTime();
            sent.set(true);
            err.printf("%nbench: sent in %.1f s (%,d acknowledged, %,d failed%s); waiting for the vote-processor…%n",
                    (sendEnd - start) / 1e9, stats.acknowledged(), stats.failed(),
                    stats.firstError() == null ? "" : ", first: " + abbreviate(stats.firstError()));
            if (warm.failed() > 0) {
                err.println("bench: " + warm.failed() + " warm-up votes failed, first: " + abbreviate(warm.firstError()));
            }
            if (stats.crash() != null || warm.crash() != null) {
                Throwable crash = stats.crash() != null ? stats.crash() : warm.crash();
                throw new IllegalStateException("a load thread failed: " + crash, crash);
            }
            if (kills != null) {
                kills.join();
            }
            processed = EventLog.awaitProcessed(kafka, group, Duration.ofSeconds(180));
            if (!processed) {
                err.println("bench: the vote-processor did not process every command within 180 s; the log may be incomplete");
            }
            // the pipeline's work ends when the projector and the fraud-detector have read every delta the processor
            // wrote: the CPU and log figures stop there, before the bench's own audit of the log
            for (String[] reader : downstream(env)) {
                if (!EventLog.awaitCommitted(kafka, reader[0], reader[1], Duration.ofSeconds(120))) {
                    err.println("bench: " + reader[0] + " did not read all of " + reader[1] + " within 120 s");
                }
            }
            Map<String, Double> cpuPerVote = cpu.microsPerVote(stats.acknowledged());
            err.println("bench: CPU µs per vote by stage: " + cpuPerVote);
            Map<String, Double> offsetsPerVote = records.perVote(stats.acknowledged());
            err.println("bench: log offsets per vote by topic: " + offsetsPerVote);
            Map<String, Double> requestsPerThousand = requests.perThousandVotes(stats.acknowledged());
            err.println("bench: broker requests per 1,000 votes by type: " + requestsPerThousand);
            err.println("bench: reading the event log…");
            audit = EventLog.read(kafka, partitions);
            ViewSnapshot views = ViewSnapshot.readCaughtUp(kafka, partitions, audit.required(), Duration.ofSeconds(120));
            behind = views.behind(audit.required());
            if (behind > 0) {
                err.println("bench: " + behind + " items' views still behind the log after 120 s");
            }
            // the run's last view is the last record of tally.item-counts that the follower read in its time
            if (!follower.awaitPosition(views.ends(), Duration.ofSeconds(30))) {
                err.println("bench: the view follower did not read tally.item-counts to its end within 30 s");
            }
            visibleEnd = follower.lastRecordNanos();
            long settled = follower.settle(views);
            if (settled > 0) {
                err.println("bench: " + settled + " sampled votes were visible before their acknowledgement was counted;"
                        + " timed to the last view");
            }
            mismatches = views.mismatches(audit.totals());
            mismatches.stream().limit(10).forEach(m -> err.println("bench: view ≠ log: " + m));
            if (follower.failure() != null) {
                err.println("bench: following tally.item-counts failed: " + follower.failure());
            }
            reads.close();
            if (reads.errors() > 0) {
                err.println("bench: " + reads.errors() + " of " + reads.reads() + " reads were not 200");
            }
            if (reads.dropped() > 0) {
                err.println("bench: " + reads.dropped() + " reads were due while " + ReadLoad.MAX_UNANSWERED
                        + " were unanswered, and were not sent: the node did not keep the read pace");
            }
            LogAudit.Tallies tallies = audit.tallies(warm.acknowledged() + stats.acknowledged());
            double sendSeconds = (sendEnd - start) / 1e9;
            double endToEnd = (Math.max(visibleEnd, sendEnd) - start) / 1e9;
            long pending = follower.pendingSamples();
            if (pending > 0) {
                err.println("bench: " + pending + " sampled votes never became visible");
            }
            if (latencyLog != null) {
                follower.writeTimeline(latencyLog);
                err.println("bench: every sampled vote's vote→visible written to " + latencyLog);
            }
            return new BenchResult(load.cliName(), via, stats.target(),
                    Math.round(stats.acknowledged() / endToEnd), null,
                    warm.acknowledged() + stats.acknowledged(), tallies.counted(), tallies.lost(), tallies.doubleCounted(),
                    follower.visible().percentileMillis(50), follower.visible().percentileMillis(99),
                    reads.latencies().percentileMillis(99), ProcessMemory.selfRssMb(),
                    Math.round(stats.acknowledged() / sendSeconds), stats.failed(), mismatches.size() + behind,
                    reads.reads(), reads.dropped(), follower.visible().count(), Math.round(endToEnd * 10) / 10.0, warm.acknowledged(),
                    drill == null ? null : drill.kills(), cpuPerVote, offsetsPerVote, requestsPerThousand,
                    http == null ? null : httpReport(http, stats, steps));
        }
    }

    /** The applications downstream of the vote-processor, each with the topic it reads (group id, topic). */
    private static List<String[]> downstream(Env env) {
        return List.of(new String[] {CountProjectorConfig.from(env).applicationId(), Topics.COUNT_DELTAS.name()},
                new String[] {FraudDetectorConfig.from(env).applicationId(), Topics.NETWORK_COMMANDS.name()});
    }

    private void send(KafkaSettings kafka, HttpDriver http, Workload load, LoadStats stats, ViewFollower follower)
            throws InterruptedException {
        if (http == null) {
            KafkaLoad.run(kafka, load, producers, stats, follower, Duration.ofMillis(lingerMs), networks);
        } else {
            HttpLoad.run(http, load, connections, stats, follower);
        }
    }

    /**
     * The warm-up: rounds of {@link #warmup} votes (paced at {@link #rate} when the run is), each sent and processed,
     * until a round's compilations took
     * less than {@value #WARM_JIT_SHARE} of its time (at most {@link #warmupRounds}). One round is
     * not enough: on 2 cores the C2 queue runs tens of seconds behind a loaded node, and the JIT drops the
     * queued compilations of methods that went idle when the round ended, which would then be compiled inside
     * the measured run.
     *
     * @return the rounds' votes as one (the next vote's sequence number is its {@code target})
     */
    private LoadStats warmUp(PrintStream err, KafkaSettings kafka, HttpDriver http, Workload load, ViewFollower follower,
                             String group) throws Exception {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        List<LoadStats> rounds = new ArrayList<>();
        long seq = 0;
        for (int round = 1; round <= warmupRounds; round++) {
            long compiled = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            // paced and sampled as the run is, so that C2 compiles the load's senders and the view follower with their
            // sampling branches and does not recompile them when the measured run begins
            LoadStats warm = new LoadStats(seq, warmup, Long.MAX_VALUE / 2 + t0, rate, true);
            send(kafka, http, load, warm, follower);
            boolean caughtUp = EventLog.awaitProcessed(kafka, group, Duration.ofSeconds(180));
            double millis = (System.nanoTime() - t0) / 1e6;
            double share = (jit.getTotalCompilationTime() - compiled) / millis;
            rounds.add(warm);
            seq += warmup;
            err.printf("bench: warm-up round %d: %,d votes sent and %s in %.1f s, the JIT compiling %.0f%% of the time%n",
                    round, warm.acknowledged(), caughtUp ? "processed" : "NOT processed", millis / 1e3, share * 100);
            if (share < WARM_JIT_SHARE) {
                break;
            }
        }
        LoadStats warm = LoadStats.total(rounds);
        err.printf("bench: warm-up: %,d votes in %d rounds, excluded from the figures%n", warm.acknowledged(), rounds.size());
        return warm;
    }

    /**
     * Waits (at most {@value #JIT_SETTLE_MAX_SECONDS} s) until the JIT compilers spend less than 5% of a core:
     * on 2 cores the compile queue a warm-up leaves behind takes tens of seconds to drain, and a run measured
     * meanwhile shares the CPU with C2.
     */
    private static void awaitJitQuiet(PrintStream err) throws InterruptedException {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long t0 = System.nanoTime();
        long before = jit.getTotalCompilationTime();
        double share = 1;
        while (System.nanoTime() - t0 < Duration.ofSeconds(JIT_SETTLE_MAX_SECONDS).toNanos()) {
            Thread.sleep(2_000);
            long now = jit.getTotalCompilationTime();
            share = (now - before) / 2_000.0;
            before = now;
            if (share < 0.05) {
                break;
            }
        }
        err.printf("bench: JIT %s after %.0f s (compiling %.0f%% of a core)%n", share < 0.05 ? "settled" : "still busy",
                (System.nanoTime() - t0) / 1e9, share * 100);
    }

    /**
     * {@code --find-rate}: paced steps, each {@link #stepSeconds} long and 25% faster than the one before,
     * until one does not hold (p99 answer latency over {@value #SUSTAINED_P99_MS} ms, a failed vote, or fewer
     * than 97% of its votes answered in its time). Each step is added to {@code steps}; returns their stats.
     */
    private List<LoadStats> rateSearch(PrintStream err, HttpDriver http, Workload load, ViewFollower follower,
                                       List<Map<String, Object>> steps, long firstSeq) throws InterruptedException {
        List<LoadStats> runs = new ArrayList<>();
        long seq = firstSeq;
        double stepRate = rate > 0 ? rate : 500;
        for (int i = 0; i < MAX_STEPS; i++) {
            long votesInStep = Math.round(stepRate * stepSeconds);
            long t0 = System.nanoTime();
            LoadStats step = new LoadStats(seq, votesInStep, t0 + Duration.ofSeconds(stepSeconds).toNanos(), Math.round(stepRate), true);
            HttpLoad.run(http, load, connections, step, follower);
            double elapsed = (System.nanoTime() - t0) / 1e9;
            seq += votesInStep;
            runs.add(step);
            Double p50 = step.answers().percentileMillis(50);
            Double p99 = step.answers().percentileMillis(99);
            long answeredPerSecond = Math.round(step.acknowledged() / elapsed);
            boolean kept = step.acknowledged() >= 0.97 * votesInStep && elapsed <= stepSeconds * 1.1;
            boolean held = kept && step.failed() == 0 && p99 != null && p99 <= SUSTAINED_P99_MS;
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("rate", Math.round(stepRate));
            report.put("answered_per_s", answeredPerSecond);
            report.put("p50_ms", p50);
            report.put("p99_ms", p99);
            report.put("failed", step.failed());
            report.put("held", held);
            steps.add(report);
            err.printf("bench: step %d: %,d votes/s asked, %,d/s answered, p50 %s ms, p99 %s ms, %d failed: %s%n", i + 1,
                    Math.round(stepRate), answeredPerSecond, p50, p99, step.failed(), held ? "held" : "did not hold");
            if (!held) {
                break;
            }
            stepRate *= 1.25;
        }
        return runs;
    }

    /** The HTTP path's own figures: connections, answer latency from each vote's due time, the rate search. */
    private static Map<String, Object> httpReport(HttpDriver http, LoadStats stats, List<Map<String, Object>> steps) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("connections", http.connections());
        report.put("answer_p50_ms", stats.answers().percentileMillis(50));
        report.put("answer_p99_ms", stats.answers().percentileMillis(99));
        if (!steps.isEmpty()) {
            report.put("sustained_votes_per_s", steps.stream().filter(st -> Boolean.TRUE.equals(st.get("held")))
                    .mapToLong(st -> (Long) st.get("rate")).max().orElse(0));
            report.put("p99_limit_ms", SUSTAINED_P99_MS);
            report.put("steps", steps);
        }
        return report;
    }

    /**
     * Own data dir, free ports, dev profile; fraud thresholds out of the way so one host's load is not
     * throttled. Tuning variables set in the caller's environment ({@link #TUNABLES}) pass through, so a
     * trade-off such as {@code TALLY_COMMIT_INTERVAL=1s ./tally bench} can be measured.
     */
    static Map<String, String> benchEnv(Path dir, String bootstrap) {
        Map<String, String> vars = new HashMap<>();
        for (String name : TUNABLES) {
            String value = System.getenv(name);
            if (value != null) {
                vars.put(name, value);
            }
        }
        vars.put("TALLY_BOOTSTRAP", bootstrap);
        vars.put("TALLY_DATA_DIR", dir.toString());
        vars.put("TALLY_HTTP_PORT", "0");
        vars.put("TALLY_PROFILE", "dev");
        vars.put("TALLY_SECRET", HexFormat.of().formatHex(randomBytes()));
        // every bench vote comes from 127.0.0.1 (HTTP) or from fresh voters on a few items: not fraud
        vars.put("TALLY_NETWORK_DAILY_LIMIT", "100000000");
        vars.put("TALLY_NETWORK_ITEM_DAILY_LIMIT", "1000000");
        vars.put("TALLY_CLUSTER_VOTERS", "1000000");
        vars.put("TALLY_BURST_FLOOR", "1000000000"); // a viral warm-up puts a million votes on one item in minutes
        vars.put("TALLY_MAX_IN_FLIGHT", "100000");
        return vars;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[32];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static int commandPartitions(KafkaSettings kafka) {
        try (var consumer = new KafkaConsumer<>(kafka.clientProps("tally-bench-meta"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            return consumer.partitionsFor(kafka.topic(Topics.VOTE_COMMANDS).name()).size();
        }
    }

    /**
     * The launcher's log file lives in {@code ./data/logs} (the {@code ./tally up} directory): the bench
     * detaches it so its own run does not write there; warnings still reach stderr.
     */
    private static void quietFileLog() {
        if (LogManager.getContext(false) instanceof LoggerContext ctx) {
            var config = ctx.getConfiguration();
            config.getRootLogger().removeAppender("file");
            config.getLoggers().values().forEach(l -> l.removeAppender("file"));
            ctx.updateLoggers();
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
