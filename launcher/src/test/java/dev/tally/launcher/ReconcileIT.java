package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.common.Env;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.projector.reconcile.ItemDrift;
import dev.tally.projector.reconcile.Progress;
import dev.tally.projector.reconcile.ReconcileJob;
import dev.tally.projector.reconcile.Reconciler;
import dev.tally.projector.reconcile.Repair;
import dev.tally.projector.reconcile.Report;
import dev.tally.schema.CommandAction;
import dev.tally.schema.CountDelta;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./tally reconcile} on a real broker: no drift after random load and while load is in flight,
 * injected drift found and repaired, and the command's output.
 *
 * <p>Totals cover every item in the shared topics, so other test classes' items too: nothing but this
 * class injects drift, and it repairs what it injects, so the total must be 0 too.
 */
class ReconcileIT {
    private static final List<String> REACTIONS = List.of("like", "love", "wow");

    private static TallyNode node;
    private static TallyClient client;
    private static Reconciler reconciler;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void start() throws InterruptedException {
        node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
        client = new TallyClient(node.httpPort());
        reconciler = new Reconciler(node.runtime().kafka(), projectorAppId());
    }

    @AfterAll
    static void stop() {
        if (reconciler != null) {
            reconciler.close();
        }
        node.close();
    }

    private static String projectorAppId() {
        return CountProjectorConfig.from(Env.of(Map.of())).applicationId();
    }

    private String item(String name) {
        return "rc-" + name + "-" + run;
    }

    private static String key(String item) {
        return Topics.itemKey("post", item);
    }

    @Test
    void randomLoadInBothModesLeavesNoDriftEvenWhileInFlight() throws Exception {
        List<String> items = List.of(item("load-a"), item("load-b"), item("load-c"), item("load-d"));
        int voters = 8;
        int perVoter = 25;
        // each voter's requests run in order on its own thread; its last answer per item is its final state
        Map<String, JsonNode> finalState = new java.util.concurrent.ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(voters);
        List<Future<?>> load = new ArrayList<>();
        for (int v = 0; v < voters; v++) {
            String voter = "rc-" + run + "-voter" + v;
            Random random = new Random(31L * v + 7);
            load.add(pool.submit(() -> {
                for (int i = 0; i < perVoter; i++) {
                    String it = items.get(random.nextInt(items.size()));
                    String mode = random.nextBoolean() ? "toggle" : "set";
                    String body = random.nextBoolean()
                            ? "\"vote_value\":" + (random.nextInt(3) - 1)
                            : "\"reaction\":" + (random.nextInt(4) == 0 ? "null" : "\"" + REACTIONS.get(random.nextInt(REACTIONS.size())) + "\"");
                    var reply = client.vote(voter, "{\"item_type\":\"post\",\"item_id\":\"" + it + "\"," + body
                            + ",\"mode\":\"" + mode + "\"}");
                    assertThat(reply.status()).as("%s on %s: %s", voter, it, reply.body()).isEqualTo(200);
                    finalState.put(voter + "|" + it, reply.body());
                }
                return null;
            }));
        }
        // reconcile back to back while the load runs: views lag the log, yet nothing may count as drift
        List<Report> inFlight = new ArrayList<>();
        while (load.stream().anyMatch(f -> !f.isDone())) {
            inFlight.add(reconciler.reconcile(Progress.NONE, Report.EVERY_ITEM));
        }
        for (Future<?> f : load) {
            f.get();
        }
        pool.shutdown();
        inFlight.add(reconciler.reconcile(Progress.NONE, Report.EVERY_ITEM));
        System.out.printf("ReconcileIT: %d reconciles during the load, events not yet projected: %s%n", inFlight.size(),
                inFlight.stream().map(Report::unprojected).toList());
        for (Report r : inFlight) {
            assertThat(r.drifting()).as("drift while votes are in flight").isEmpty();
            assertThat(r.drift()).isZero();
        }

        Map<String, Map<String, Long>> oracle = oracle(items, finalState);
        for (String it : items) {
            Map<String, Long> expected = oracle.get(it);
            awaitItem(it, b -> b.get("upvotes").asLong() == expected.get("up") && b.get("downvotes").asLong() == expected.get("down"));
        }
        Report settled = awaitReport(r -> items.stream().allMatch(it -> r.item(key(it)).map(d -> d.unprojected() == 0).orElse(false)));
        assertThat(settled.drift()).as(settled.drifting().toString()).isZero();
        for (String it : items) {
            ItemDrift d = settled.item(key(it)).orElseThrow();
            Map<String, Long> expected = oracle.get(it);
            assertThat(d.drift()).as(it).isZero();
            assertThat(d.expected().up()).as(it + " up, from the log").isEqualTo(expected.get("up"));
            assertThat(d.expected().down()).as(it + " down, from the log").isEqualTo(expected.get("down"));
            for (String code : REACTIONS) {
                assertThat(d.expected().reaction(code)).as(it + " " + code).isEqualTo(expected.getOrDefault(code, 0L));
            }
            assertThat(d.actual()).as(it + ": the view").isEqualTo(d.expected());
        }
        System.out.printf("ReconcileIT: settled %s, %d events in %d ms = %.0f events/s%n", settled.summary(),
                settled.eventsRead(), settled.elapsed().toMillis(), settled.eventsPerSecond());
    }

    /** Counts from each voter's final state as its own last answer told it: independent of the event log. */
    private static Map<String, Map<String, Long>> oracle(List<String> items, Map<String, JsonNode> finalState) {
        Map<String, Map<String, Long>> counts = new HashMap<>();
        items.forEach(it -> counts.put(it, new HashMap<>(Map.of("up", 0L, "down", 0L))));
        finalState.forEach((voterItem, answer) -> {
            Map<String, Long> c = counts.get(voterItem.substring(voterItem.indexOf('|') + 1));
            int vote = answer.get("user_vote").asInt();
            if (vote != 0) {
                c.merge(vote == 1 ? "up" : "down", 1L, Long::sum);
            }
            if (!answer.get("user_reaction").isNull()) {
                c.merge(answer.get("user_reaction").asText(), 1L, Long::sum);
            }
        });
        return counts;
    }

    @Test
    void injectedDriftIsReportedRepairedAndGone() throws Exception {
        String it = item("drift");
        for (String voter : List.of("a", "b", "c")) {
            assertThat(client.vote("rc-" + run + "-" + voter, it, 1, "set").status()).isEqualTo(200);
        }
        assertThat(client.vote("rc-" + run + "-d", it, -1, "set").status()).isEqualTo(200);
        awaitItem(it, b -> b.get("upvotes").asLong() == 3 && b.get("downvotes").asLong() == 1);

        injectBogusDelta(it, 5, 0, Map.of());
        assertThat(awaitItem(it, b -> b.get("upvotes").asLong() == 8).get("upvotes").asLong()).isEqualTo(8);

        // a GET reads the projector's store, which under exactly-once is up to one commit ahead of tally.item-counts
        Report found = awaitReport(r -> r.item(key(it)).map(d -> d.drift() >= 5).orElse(false));
        ItemDrift drift = found.item(key(it)).orElseThrow();
        assertThat(drift.drift()).as(drift.line()).isGreaterThanOrEqualTo(5);
        assertThat(drift.actual().up()).isEqualTo(8);
        assertThat(drift.expected().up()).isEqualTo(3);
        assertThat(drift.line()).startsWith(key(it) + " up 8≠3 down 1=1");
        assertThat(found.drift()).isGreaterThanOrEqualTo(5);
        assertThat(found.drifting()).extracting(ItemDrift::item).contains(key(it));

        Repair repair = reconciler.repair(found);
        assertThat(repair.items()).contains(key(it));
        assertThat(reconciler.awaitProjected(repair, Duration.ofSeconds(30))).as("the projector folds the correction").isTrue();
        assertThat(awaitItem(it, b -> b.get("upvotes").asLong() == 3).get("upvotes").asLong()).isEqualTo(3);

        Report after = reconciler.reconcile(Progress.NONE, Report.EVERY_ITEM);
        assertThat(after.item(key(it)).orElseThrow().drift()).isZero();
        assertThat(after.drift()).as(after.drifting().toString()).isZero();
    }

    @Test
    void theCommandPrintsDriftLinesAndEndsWithTheSummary() throws Exception {
        String it = item("cli");
        assertThat(client.vote("rc-" + run + "-cli", it, 1, "set").status()).isEqualTo(200);
        awaitItem(it, b -> b.get("upvotes").asLong() == 1);
        injectBogusDelta(it, 0, 2, Map.of("like", 1L));
        awaitItem(it, b -> b.get("downvotes").asLong() == 2);
        awaitReport(r -> r.item(key(it)).map(d -> d.drift() >= 4).orElse(false)); // in tally.item-counts too

        CliRun.Output repaired = cli("--bootstrap", SharedBroker.get().bootstrap(), "--repair");

        assertThat(repaired.exit()).isZero();
        assertThat(repaired.lines()).contains(key(it) + " up 1=1 down 2≠0 reactions {like:1≠0} weighted_down 2.0≠0.0");
        assertThat(repaired.lines()).anyMatch(l -> l.matches("repaired \\d+ items"));
        assertThat(repaired.last()).matches("items=\\d+ drift=\\d+");
        assertThat(Long.parseLong(repaired.last().replaceAll(".* drift=", ""))).as("drift before repair").isGreaterThanOrEqualTo(3);
        assertThat(repaired.err()).contains("reconcile [", "100% ").contains("\r");
        awaitItem(it, b -> b.get("downvotes").asLong() == 0);

        CliRun.Output clean = cli("--bootstrap", SharedBroker.get().bootstrap());

        assertThat(clean.exit()).isZero();
        assertThat(clean.last()).matches("items=\\d+ drift=0");
        assertThat(clean.lines()).hasSize(1);
    }

    @Test
    void theScheduledJobRepairsOnceAndKeepsTheCountRight() throws Exception {
        String it = item("job");
        assertThat(client.vote("rc-" + run + "-job", it, -1, "set").status()).isEqualTo(200);
        awaitItem(it, b -> b.get("downvotes").asLong() == 1);
        injectBogusDelta(it, 3, 0, Map.of());
        awaitItem(it, b -> b.get("upvotes").asLong() == 3);

        Env env = Env.of(Map.of("TALLY_RECONCILE_INTERVAL", "1s", "TALLY_RECONCILE_REPAIR", "true"));
        try (ReconcileJob job = ReconcileJob.from(env, node.runtime().kafka()).start()) {
            assertThat(awaitItem(it, b -> b.get("upvotes").asLong() == 0).get("upvotes").asLong()).isZero();
            Thread.sleep(4_000); // several more runs: a second correction of the same drift would show as -3
            JsonNode after = client.get(null, "/v1/votes/post/" + it).body();
            assertThat(after.get("upvotes").asLong()).isZero();
            assertThat(after.get("downvotes").asLong()).isEqualTo(1);
        }
        assertThat(reconciler.reconcile(Progress.NONE, Report.EVERY_ITEM).drift()).isZero();
    }

    /**
     * Measures the read rate on a log of some size: 20,000 commands go straight to
     * {@code tally.vote-commands} (no HTTP, nobody waits for the answers), and reconciles run while the
     * vote-processor and the count-projector work through them. Each must find no drift.
     */
    @Test
    void aLargeLogReconcilesWithoutDriftWhileItIsProjected() throws Exception {
        int commands = 20_000;
        List<String> items = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            items.add(item("bulk" + i));
        }
        Random random = new Random(11);
        var kafka = node.runtime().kafka();
        try (var producer = new KafkaProducer<>(kafka.producerProps("it-reconcile-bulk", Duration.ofSeconds(30)),
                Topics.VOTE_COMMANDS.keySerde().serializer(), Topics.VOTE_COMMANDS.valueSerde().serializer())) {
            for (int i = 0; i < commands; i++) {
                String voter = "rc-bulk-" + run + "-" + random.nextInt(400);
                boolean vote = random.nextBoolean();
                VoteCommand command = VoteCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                        .setItemType("post").setItemId(items.get(random.nextInt(items.size())))
                        .setAction(vote ? CommandAction.VOTE : CommandAction.REACTION)
                        .setVoteValue(vote ? random.nextInt(3) - 1 : 0)
                        .setReaction(vote || random.nextInt(4) == 0 ? null : REACTIONS.get(random.nextInt(REACTIONS.size())))
                        .setMode(random.nextBoolean() ? VoteMode.TOGGLE : VoteMode.SET)
                        .setReplyPartition(-1).setReceivedAt(Instant.now()).build();
                producer.send(new ProducerRecord<>(Topics.VOTE_COMMANDS.name(), voter, Topics.batchOf(command)));
            }
            producer.flush();
        }
        long start = System.nanoTime();
        List<Report> during = new ArrayList<>();
        do {
            during.add(reconciler.reconcile(Progress.NONE, Report.EVERY_ITEM));
            assertThat(during.get(during.size() - 1).drifting()).as("drift while the log is projected").isEmpty();
        } while (processorLag() > 0 && System.nanoTime() - start < Duration.ofMinutes(3).toNanos());
        Report settled = awaitReport(r -> items.stream().allMatch(it -> r.item(key(it)).map(d -> d.unprojected() == 0).orElse(true)));

        assertThat(settled.drift()).isZero();
        assertThat(items).allMatch(it -> settled.item(key(it)).isPresent());
        System.out.printf("ReconcileIT: %d reconciles while %d commands were processed; not yet projected: %s%n",
                during.size(), commands, during.stream().map(Report::unprojected).toList());
        System.out.printf("ReconcileIT: settled %s, %d events in %d ms%n", settled.summary(), settled.eventsRead(),
                settled.elapsed().toMillis());
    }

    /** Commands the vote-processor has not yet committed past. */
    private static long processorLag() throws Exception {
        var kafka = node.runtime().kafka();
        try (Admin admin = Admin.create(kafka.clientProps("it-reconcile-lag"))) {
            var committed = admin.listConsumerGroupOffsets("tally-vote-processor").partitionsToOffsetAndMetadata().get();
            var partitions = admin.describeTopics(List.of(Topics.VOTE_COMMANDS.name())).allTopicNames().get()
                    .get(Topics.VOTE_COMMANDS.name()).partitions();
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
            partitions.forEach(p -> latest.put(new TopicPartition(Topics.VOTE_COMMANDS.name(), p.partition()),
                    org.apache.kafka.clients.admin.OffsetSpec.latest()));
            long lag = 0;
            for (var e : admin.listOffsets(latest).all().get().entrySet()) {
                var c = committed.get(e.getKey());
                lag += e.getValue().offset() - (c == null ? 0 : c.offset());
            }
            return lag; // commands are written without transactions: no markers to discount
        }
    }

    private static void injectBogusDelta(String it, long up, long down, Map<String, Long> reactions) throws Exception {
        var kafka = node.runtime().kafka();
        try (var producer = new KafkaProducer<>(kafka.producerProps("it-reconcile-bogus", Duration.ofSeconds(10)),
                Topics.COUNT_DELTAS.keySerde().serializer(), Topics.COUNT_DELTAS.valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(Topics.COUNT_DELTAS.name(), key(it), Topics.batchOf(CountDelta.newBuilder()
                    .setItemType("post").setItemId(it).setUpvotes(up).setDownvotes(down).setReactions(reactions)
                    .setWeightedDown(down).setSourcePartition(-1).setThroughOffset(-1).build()))).get();
        }
    }

    private static CliRun.Output cli(String... args) {
        return CliRun.run(new ReconcileCommand(), args);
    }

    private static Report awaitReport(Predicate<Report> until) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Report last;
        do {
            last = reconciler.reconcile(Progress.NONE, Report.EVERY_ITEM);
            if (until.test(last)) {
                return last;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return last;
    }

    private static JsonNode awaitItem(String item, Predicate<JsonNode> until) throws InterruptedException {
        return client.awaitItem(null, item, until, Duration.ofSeconds(30)).body();
    }
}
