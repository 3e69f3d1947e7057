package dev.tally.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicScan;
import dev.tally.common.ranking.RankedItem;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.common.ranking.RankingSort;
import dev.tally.common.ranking.RankingWindow;
import dev.tally.launcher.bench.EventLog;
import dev.tally.projector.rankings.RankingsConfig;
import dev.tally.schema.RankingLists;
import dev.tally.schema.RankingListsStatus;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./tally rankings rebuild|verify}: the live ranked lists, replayed under a policy or checked against the log. */
@Command(name = "rankings", mixinStandardHelpOptions = true,
        header = "Rebuilds the live ranked lists under a policy, or verifies them against the event log.",
        subcommands = {RankingsCommand.Rebuild.class, RankingsCommand.Verify.class})
final class RankingsCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("rankings: say rebuild or verify (./tally rankings --help)");
    }

    static RankingPolicy policy(String name) {
        try {
            return RankingPolicy.parse(name);
        } catch (IllegalArgumentException e) {
            throw new Env.ConfigException("--policy: " + e.getMessage());
        }
    }

    /**
     * Lists the policy in {@code tally.ranking-lists}, so every node starts its lists (a Streams application of its
     * own, which replays {@code tally.vote-events} from the start beside the live lists); waits until that
     * application has read the log as it stood when the rebuild began, then marks the lists live and serving
     * requests that name no policy. The lists of the policy that served before stay, for {@code &policy=}.
     */
    @Command(name = "rebuild", mixinStandardHelpOptions = true,
            header = "Replays the event log into ranked lists under a policy, then serves them by default.")
    static final class Rebuild implements Callable<Integer> {
        @Option(names = "--policy", required = true, paramLabel = "all|trusted|signed-in")
        String policy;

        @Option(names = "--timeout-seconds", defaultValue = "3600", paramLabel = "S",
                description = "give up waiting for the replay after S seconds [${DEFAULT-VALUE}]")
        long timeoutSeconds;

        @Mixin
        KafkaOption kafkaOption;

        @Override
        public Integer call() throws Exception {
            RankingPolicy chosen = policy(policy);
            Env env = kafkaOption.env();
            KafkaSettings kafka = kafkaOption.kafka();
            RankingsConfig config = RankingsConfig.from(env);
            String application = config.applicationId(chosen);
            String events = kafka.topic(Topics.VOTE_EVENTS).name();
            String listsTopic = kafka.topic(Topics.RANKING_LISTS).name();
            try (Admin admin = Admin.create(kafka.clientProps("tally-rankings-rebuild"));
                 var producer = new KafkaProducer<>(kafka.producerProps("tally-rankings-rebuild", Duration.ofSeconds(30)),
                         Topics.RANKING_LISTS.keySerde().serializer(), Topics.RANKING_LISTS.valueSerde().serializer())) {
                Map<TopicPartition, Long> end = EventLog.ends(admin, events);
                long total = end.values().stream().mapToLong(Long::longValue).sum();
                producer.send(new ProducerRecord<>(listsTopic, chosen.wireName(),
                        entry(chosen, RankingListsStatus.BUILDING, false))).get(30, TimeUnit.SECONDS);
                System.err.printf("rankings: replaying %,d offsets of %s into the lists of policy %s (application %s)%n",
                        total, events, chosen.wireName(), application);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
                long lastPrint = 0;
                while (true) {
                    var committed = EventLog.committed(admin, application, events);
                    long done = 0;
                    boolean caughtUp = true;
                    for (var e : end.entrySet()) {
                        var offset = committed.get(e.getKey());
                        long at = offset == null ? 0 : Math.min(offset.offset(), e.getValue());
                        done += at;
                        caughtUp &= e.getValue() == 0 || (offset != null && offset.offset() >= e.getValue() - 1);
                    }
                    if (caughtUp) {
                        break;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        System.err.printf("rankings: the lists of %s read %,d of %,d offsets in %d s; is a node with"
                                + " TALLY_RANKED_LISTS on running? They keep building; run rebuild again to switch once"
                                + " they are done.%n", chosen.wireName(), done, total, timeoutSeconds);
                        return 1;
                    }
                    if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(5)) {
                        System.err.printf("rankings: %,d of %,d offsets replayed%n", done, total);
                        lastPrint = System.nanoTime();
                    }
                    Thread.sleep(500);
                }
                // first the new lists serve by default, then the others stop: there is never a moment with none
                producer.send(new ProducerRecord<>(listsTopic, chosen.wireName(), entry(chosen, RankingListsStatus.LIVE, true)))
                        .get(30, TimeUnit.SECONDS);
                for (RankingPolicy other : RankingPolicy.values()) {
                    if (other != chosen) {
                        var current = listed(kafka).get(other.wireName());
                        if (current != null && current.getServesDefault()) {
                            current.setServesDefault(false);
                            current.setChangedAt(Instant.now());
                            producer.send(new ProducerRecord<>(listsTopic, other.wireName(), current)).get(30, TimeUnit.SECONDS);
                        }
                    }
                }
            }
            System.out.printf("rankings: the lists of policy %s are live and answer requests that name no policy;"
                    + " the lists of the other kept policies answer &policy=%n", chosen.wireName());
            return 0;
        }

        private static RankingLists entry(RankingPolicy policy, RankingListsStatus status, boolean servesDefault) {
            return RankingLists.newBuilder().setPolicy(policy.wireName()).setVersion(policy.version()).setStatus(status)
                    .setServesDefault(servesDefault).setChangedAt(Instant.now()).build();
        }

        private static Map<String, RankingLists> listed(KafkaSettings kafka) {
            Map<String, RankingLists> out = new HashMap<>();
            TopicScan.readAll(kafka, Topics.RANKING_LISTS, r -> {
                if (r.value() == null) {
                    out.remove(r.key());
                } else {
                    out.put(r.key(), r.value());
                }
            });
            return out;
        }
    }

    /**
     * Folds the whole event log into every item's ranking under the policy, as the live lists do, and reads every
     * list of every item type from a node page by page; prints each list that differs, exit 1 when one does. Run it
     * while votes are quiet: an item that moves while it reads is reported.
     */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            header = "Recomputes every ranked list from the event log and compares it with a node's.")
    static final class Verify implements Callable<Integer> {
        private static final ObjectMapper JSON = new ObjectMapper();
        private static final int PAGE = 100;

        @Option(names = "--policy", paramLabel = "all|trusted|signed-in",
                description = "the lists to check [TALLY_RANKING_POLICY, trusted]")
        String policy;

        @Option(names = "--url", paramLabel = "URL", description = "a node's HTTP address [http://127.0.0.1:$TALLY_HTTP_PORT, 8080]")
        String url;

        @Mixin
        KafkaOption kafkaOption;

        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        @Override
        public Integer call() throws Exception {
            Env env = kafkaOption.env();
            KafkaSettings kafka = kafkaOption.kafka();
            RankingsConfig config = RankingsConfig.from(env);
            RankingPolicy checked = policy == null ? config.policy() : policy(policy);
            String base = url != null ? url : "http://127.0.0.1:" + env.integer("TALLY_HTTP_PORT", 8080, 1, 65535);
            Map<String, RankedItem> items = new HashMap<>();
            Map<Integer, Long> read = new TreeMap<>();
            TopicScan.readAll(kafka, Topics.VOTE_EVENTS, r -> {
                VoteEvent event = r.value();
                if (event != null) {
                    items.computeIfAbsent(new ItemKey(event.getItemType(), event.getItemId()).toString(), k -> new RankedItem())
                            .apply(event, checked);
                }
                read.merge(r.partition(), r.offset() + 1, Math::max);
            });
            System.err.printf("rankings: %,d items folded from %s under policy %s%n", items.size(),
                    kafka.topic(Topics.VOTE_EVENTS).name(), checked.wireName());
            TreeSet<String> types = new TreeSet<>();
            items.keySet().forEach(k -> types.add(ItemKey.parse(k).type()));
            if (!types.isEmpty()) {
                awaitPosition(base, types.first(), checked, read);
            }
            int differing = 0;
            int lists = 0;
            for (String type : types) {
                for (RankingSort sort : RankingSort.values()) {
                    for (RankingWindow window : sort.windowed() ? List.of(RankingWindow.values()) : List.of(RankingWindow.ALL)) {
                        lists++;
                        String name = type + " " + sort.wireName() + (sort.windowed() ? " " + window.wireName() : "");
                        String problem = compare(base, type, sort, window, checked, items, config.z());
                        if (problem != null && RankedList.of(sort, window).window() != null) {
                            Thread.sleep(6_000); // a vote may have left the window since the lists last placed it
                            problem = compare(base, type, sort, window, checked, items, config.z());
                        }
                        if (problem != null) {
                            differing++;
                            System.out.println(name + ": " + problem);
                        }
                    }
                }
            }
            System.out.printf("lists=%d differing=%d items=%d policy=%s%n", lists, differing, items.size(), checked.wireName());
            return differing == 0 ? 0 : 1;
        }

        /** Waits until the node's lists reflect every event read (its Tally-Position), at most a minute. */
        private void awaitPosition(String base, String type, RankingPolicy policy, Map<Integer, Long> read) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                var response = get(base + "/v1/rankings/" + type + "?limit=1&policy=" + policy.wireName());
                Map<Integer, Long> at = new HashMap<>();
                for (String part : response.headers().firstValue("Tally-Position").orElse("").split(",")) {
                    if (part.contains(":")) {
                        at.put(Integer.valueOf(part.substring(0, part.indexOf(':'))), Long.valueOf(part.substring(part.indexOf(':') + 1)));
                    }
                }
                if (read.entrySet().stream().allMatch(e -> at.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
                    return;
                }
                Thread.sleep(200);
            }
            System.err.println("rankings: the node's lists did not reach the end of the log within 60 s; comparing anyway");
        }

        /** Null when the node's list is the log's, item by item and key by key; else where they first differ. */
        private String compare(String base, String type, RankingSort sort, RankingWindow window, RankingPolicy policy,
                               Map<String, RankedItem> items, double z) throws Exception {
            RankedList list = RankedList.of(sort, window);
            Instant now = Instant.now();
            List<Map.Entry<String, Double>> expected = new ArrayList<>();
            items.forEach((key, item) -> {
                ItemKey k = ItemKey.parse(key);
                if (k.type().equals(type)) {
                    double value = item.key(list, now, z);
                    if (!Double.isNaN(value) && (sort != RankingSort.RISING || value > 0)) {
                        expected.add(Map.entry(k.id(), value == 0.0 ? 0.0 : value));
                    }
                }
            });
            expected.sort(Comparator.comparing((Map.Entry<String, Double> e) -> e.getValue()).reversed()
                    .thenComparing(Map.Entry::getKey));
            List<Map.Entry<String, Double>> actual = new ArrayList<>();
            String cursor = null;
            do {
                String path = base + "/v1/rankings/" + type + "?sort=" + sort.wireName()
                        + (sort.windowed() ? "&window=" + window.wireName() : "") + "&policy=" + policy.wireName()
                        + "&limit=" + PAGE + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
                var response = get(path);
                if (response.statusCode() != 200) {
                    return "the node answered " + response.statusCode() + ": " + response.body();
                }
                JsonNode page = JSON.readTree(response.body());
                for (JsonNode item : page.get("items")) {
                    actual.add(Map.entry(item.get("item_id").asText(), item.get("key").asDouble()));
                }
                cursor = page.get("next_cursor").isNull() ? null : page.get("next_cursor").asText();
            } while (cursor != null);
            for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
                var want = i < expected.size() ? expected.get(i) : null;
                var got = i < actual.size() ? actual.get(i) : null;
                if (want == null || got == null || !want.getKey().equals(got.getKey()) || !want.getValue().equals(got.getValue())) {
                    return String.format(Locale.ROOT, "%d items in the log's list, %d in the node's; first difference at rank %d: log %s, node %s",
                            expected.size(), actual.size(), i + 1, show(want), show(got));
                }
            }
            return null;
        }

        private static String show(Map.Entry<String, Double> e) {
            return e == null ? "(none)" : e.getKey() + " " + e.getValue();
        }

        private HttpResponse<String> get(String uri) throws IOException, InterruptedException {
            return http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
