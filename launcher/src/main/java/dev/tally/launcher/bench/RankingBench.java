package dev.tally.launcher.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankingCursor;
import dev.tally.common.ranking.RankingSort;
import dev.tally.common.ranking.RankingWindow;
import dev.tally.launcher.TallyNode;
import dev.tally.projector.rankings.RankingsConfig;
import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schemas.Topics;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * {@code ./tally bench --rankings ITEMS}: the live ranked lists at catalogue scale. Votes rank ITEMS items of one
 * type (two votes each, up or down at random, so half of them are controversial); then pages of 25 are read in every
 * sort, from the top and following cursors deep into the list; then, under a steady paced load, a probe vote on a new
 * item is timed from its send until a page shows it — an event's moves in every list are one atomic write, so the
 * page of {@code sort=new} showing it means every list holds it.
 */
public final class RankingBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> SORTS = List.of("hot", "best", "top&window=day", "top&window=all", "controversial",
            "rising", "new");
    private static final int PAGES_PER_SORT = 400;
    private static final int DEEP_PAGES = 20;
    private static final int CHECK_HEAP_MB = 2048;

    private RankingBench() {}

    public record Result(long items, long votes, double fillSeconds, long indexMb, Map<String, Map<String, Double>> pages,
                         double pageP99Ms, long probes, Double movedP50Ms, Double movedP99Ms, int loadRate, long rssMb,
                         Map<String, Object> checks) {
        public String toJson() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("items", items);
            out.put("votes", votes);
            out.put("fill_seconds", Math.round(fillSeconds * 10) / 10.0);
            out.put("index_mb", indexMb);
            out.put("page_of_25_ms", pages);
            out.put("page_p99_ms", pageP99Ms);
            out.put("load_votes_per_s", loadRate);
            out.put("probes", probes);
            out.put("vote_to_moved_p50_ms", movedP50Ms);
            out.put("vote_to_moved_p99_ms", movedP99Ms);
            out.put("rss_mb", rssMb);
            out.putAll(checks);
            try {
                return JSON.writeValueAsString(out);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * @param check afterwards, {@code ./tally rankings verify} on the lists, {@code rankings rebuild --policy all} over
     *              the whole log, and verify on those: each in a child process, timed
     */
    public static Result run(Path dir, Map<String, String> vars, int items, int rate, int seconds, boolean check,
                             PrintStream err) throws Exception {
        EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("kafka"), 0);
        vars.put("TALLY_BOOTSTRAP", broker.bootstrap());
        try (TallyNode node = TallyNode.start(Env.of(vars), EnumSet.allOf(TallyNode.Service.class))) {
            if (!node.awaitReady(Duration.ofSeconds(120))) {
                throw new IllegalStateException("the node was not ready within 120 s");
            }
            KafkaSettings kafka = node.runtime().kafka();
            RankingsConfig config = RankingsConfig.from(Env.of(vars));
            String base = "http://127.0.0.1:" + node.httpPort();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

            long votes = 2L * items;
            err.printf("bench: ranking %,d items of one type with %,d votes…%n", items, votes);
            long t0 = System.nanoTime();
            KafkaLoad.run(kafka, Workload.SPREAD, 1, new LoadStats(0, votes, Long.MAX_VALUE, 0, false), null);
            err.printf("bench: %,d votes sent in %.0f s; %s%n", votes, (System.nanoTime() - t0) / 1e9, lag(kafka, config));
            awaitRanked(kafka, config, err);
            double fill = (System.nanoTime() - t0) / 1e9;
            long indexMb = sizeMb(dir, "ranking-index");
            err.printf("bench: %,d items ranked in %.0f s; the indexes hold %d MB on disk%n", items, fill, indexMb);

            for (String sort : SORTS) { // the JIT and the caches warm up on every sort before any is timed
                pages(http, base, sort, new Latencies());
            }
            Map<String, Map<String, Double>> pages = new LinkedHashMap<>();
            Latencies all = new Latencies();
            for (String sort : SORTS) {
                Latencies one = new Latencies();
                pages(http, base, sort, one);
                all.add(one);
                pages.put(sort.replace("&window=", " "), Map.of("p50", one.percentileMillis(50), "p99", one.percentileMillis(99)));
                err.printf("bench: page of 25, sort=%s: p50 %.2f ms, p99 %.2f ms%n", sort, one.percentileMillis(50),
                        one.percentileMillis(99));
            }

            err.printf("bench: %d votes/s for %d s on the ranked items, a probe vote every 100 ms…%n", rate, seconds);
            Latencies moved = new Latencies();
            AtomicBoolean loading = new AtomicBoolean(true);
            long loadVotes = (long) rate * seconds;
            Thread load = new Thread(() -> {
                try {
                    KafkaLoad.run(kafka, Workload.SPREAD, 1, new LoadStats(votes, loadVotes, Long.MAX_VALUE, rate, false), null);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    loading.set(false);
                }
            }, "bench-ranking-load");
            load.start();
            Thread.sleep(2_000); // the paced load settles
            long probes = 0;
            try (var producer = new KafkaProducer<>(kafka.producerProps("tally-bench-probe", Duration.ofSeconds(30)),
                    Topics.VOTE_COMMANDS.keySerde().serializer(), Topics.VOTE_COMMANDS.valueSerde().serializer())) {
                while (loading.get()) {
                    String item = "probe" + probes;
                    String voter = Workload.voter(-1 - probes);
                    Instant at = Instant.now();
                    // where the probe enters sort=new: first among the items first voted at its millisecond
                    String from = new RankingCursor(RankingSort.NEW, RankingWindow.ALL, config.policy(), 1,
                            new OrderKey(at.toEpochMilli() + 0.5, "~")).encode();
                    long sent = System.nanoTime();
                    producer.send(new ProducerRecord<>(kafka.topic(Topics.VOTE_COMMANDS).name(), voter, Topics.batchOf(
                            VoteCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                                    .setItemType(Workload.ITEM_TYPE).setItemId(item).setAction(CommandAction.VOTE)
                                    .setVoteValue(1).setMode(VoteMode.SET).setRequestHash("").setReplyPartition(-1)
                                    .setReceivedAt(at).build())));
                    long deadline = sent + Duration.ofSeconds(10).toNanos();
                    while (System.nanoTime() < deadline) {
                        var response = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/rankings/post?sort=new&limit=50&cursor=" + from))
                                .GET().build(), HttpResponse.BodyHandlers.ofString());
                        if (response.body().contains("\"item_id\":\"" + item + "\"")) {
                            moved.recordNanos(System.nanoTime() - sent);
                            break;
                        }
                        Thread.sleep(10);
                    }
                    if (probes % 20 == 0) {
                        err.printf("bench: probe %d: %s%n", probes, lag(kafka, config));
                    }
                    probes++;
                    LoadStats.sleepUntil(sent + Duration.ofMillis(100).toNanos());
                }
            }
            load.join();
            err.printf("bench: vote → moved in every list: p50 %.0f ms, p99 %.0f ms over %d probes (%d seen)%n",
                    moved.percentileMillis(50), moved.percentileMillis(99), probes, moved.count());
            long rss = ProcessMemory.selfRssMb();
            Map<String, Object> checks = new LinkedHashMap<>();
            if (check) {
                String bootstrap = broker.bootstrap();
                checks.put("verify_" + config.policy().wireName(), child(err, "rankings", "verify", "--bootstrap", bootstrap, "--url", base));
                checks.put("rebuild_all", child(err, "rankings", "rebuild", "--policy", "all", "--bootstrap", bootstrap,
                        "--timeout-seconds", "3600"));
                checks.put("verify_all", child(err, "rankings", "verify", "--policy", "all", "--bootstrap", bootstrap, "--url", base));
            }
            return new Result(items, votes, fill, indexMb, pages, all.percentileMillis(99), probes, moved.percentileMillis(50),
                    moved.percentileMillis(99), rate, rss, checks);
        } finally {
            broker.close();
        }
    }

    /** Reads {@value #PAGES_PER_SORT} pages of 25 of one sort: from the top, then a cursor deeper each time. */
    private static void pages(HttpClient http, String base, String sort, Latencies into) throws Exception {
        String cursor = null;
        for (int i = 0; i < PAGES_PER_SORT; i++) {
            cursor = i % DEEP_PAGES == 0 ? null : cursor;
            String uri = base + "/v1/rankings/post?sort=" + sort + "&limit=25"
                    + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            long start = System.nanoTime();
            var response = http.send(HttpRequest.newBuilder(URI.create(uri)).GET().build(), HttpResponse.BodyHandlers.ofString());
            into.recordNanos(System.nanoTime() - start);
            if (response.statusCode() != 200) {
                throw new IllegalStateException(uri + " answered " + response.statusCode() + ": " + response.body());
            }
            JsonNode next = JSON.readTree(response.body()).get("next_cursor");
            cursor = next.isNull() ? null : next.asText();
        }
    }

    /** Runs a {@code ./tally} command in a child JVM (a heap of its own for the log it folds): its last line, exit and time. */
    private static String child(PrintStream err, String... args) throws Exception {
        long start = System.nanoTime();
        Process process = ChildTally.command(CHECK_HEAP_MB, "64m", args).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        int exit = process.waitFor();
        String summary = String.format(java.util.Locale.ROOT, "%s (exit %d, %.0f s)", lines.isEmpty() ? "" : lines.get(lines.size() - 1),
                exit, (System.nanoTime() - start) / 1e9);
        err.println("bench: " + String.join(" ", args).replaceAll(" --bootstrap \\S+| --url \\S+", "") + ": " + summary);
        return summary;
    }

    /** The bytes on disk of every directory called {@code name} under {@code root}, in MB. */
    private static long sizeMb(Path root, String name) throws java.io.IOException {
        long bytes = 0;
        try (var all = java.nio.file.Files.walk(root)) {
            for (Path p : all.filter(java.nio.file.Files::isRegularFile).toList()) {
                if (p.toString().contains("/" + name + "/")) {
                    bytes += java.nio.file.Files.size(p);
                }
            }
        }
        return bytes >> 20;
    }

    /** How far the vote-processor and the ranking application are behind their input, in records. */
    private static String lag(KafkaSettings kafka, RankingsConfig config) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("tally-bench-lag"))) {
            String events = kafka.topic(Topics.VOTE_EVENTS).name();
            String commands = kafka.topic(Topics.VOTE_COMMANDS).name();
            return "commands behind " + EventLog.behind(EventLog.ends(admin, commands), EventLog.committed(admin, kafka.id("vote-processor"), commands))
                    + ", events behind " + EventLog.behind(EventLog.ends(admin, events), EventLog.committed(admin, config.applicationId(config.policy()), events));
        }
    }

    /** Waits until the node's own ranking application has read every event the votes made. */
    private static void awaitRanked(KafkaSettings kafka, RankingsConfig config, PrintStream err) throws Exception {
        String events = kafka.topic(Topics.VOTE_EVENTS).name();
        String commands = kafka.topic(Topics.VOTE_COMMANDS).name();
        try (Admin admin = Admin.create(kafka.clientProps("tally-bench-ranked"))) {
            String processor = kafka.id("vote-processor");
            while (true) {
                boolean commandsDone = EventLog.caughtUp(EventLog.ends(admin, commands), EventLog.committed(admin, processor, commands));
                boolean rankedDone = EventLog.caughtUp(EventLog.ends(admin, events),
                        EventLog.committed(admin, config.applicationId(config.policy()), events));
                if (commandsDone && rankedDone) {
                    return;
                }
                err.println("bench: " + lag(kafka, config));
                Thread.sleep(2_000);
            }
        }
    }
}
