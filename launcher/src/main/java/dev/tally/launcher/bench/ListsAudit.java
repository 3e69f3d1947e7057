package dev.tally.launcher.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicScan;
import dev.tally.common.ranking.RankedItem;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.common.ranking.RankingSort;
import dev.tally.common.ranking.RankingWindow;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.Topics;
import java.io.IOException;
import java.io.PrintStream;
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
import java.util.concurrent.TimeUnit;

/**
 * The ranked lists of a node checked against the event log: every item's events folded under the policy, as the
 * live lists fold them, and every list of every item type read from the node page by page and compared, item by
 * item and key by key.
 */
public final class ListsAudit {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 100;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final RankingPolicy policy;
    private final double z;

    private ListsAudit(String base, RankingPolicy policy, double z) {
        this.base = base;
        this.policy = policy;
        this.z = z;
    }

    /**
     * How many lists of the node at {@code base} differ from the log's; each one is printed on {@code out}, progress
     * on {@code err}. Votes should be quiet meanwhile: an item that moves while the lists are read is reported.
     */
    public static int differing(KafkaSettings kafka, String base, RankingPolicy policy, double z, PrintStream out,
                                PrintStream err) throws Exception {
        return new ListsAudit(base, policy, z).run(kafka, out, err);
    }

    private int run(KafkaSettings kafka, PrintStream out, PrintStream err) throws Exception {
        Map<String, RankedItem> items = new HashMap<>();
        Map<Integer, Long> read = new TreeMap<>();
        TopicScan.readAll(kafka, Topics.VOTE_EVENTS, r -> {
            VoteEvent event = r.value();
            if (event != null) {
                items.computeIfAbsent(new ItemKey(event.getItemType(), event.getItemId()).toString(), k -> new RankedItem())
                        .apply(event, policy);
            }
            read.merge(r.partition(), r.offset() + 1, Math::max);
        });
        err.printf("rankings: %,d items folded from %s under policy %s%n", items.size(),
                kafka.topic(Topics.VOTE_EVENTS).name(), policy.wireName());
        TreeSet<String> types = new TreeSet<>();
        items.keySet().forEach(k -> types.add(ItemKey.parse(k).type()));
        if (!types.isEmpty()) {
            awaitPosition(types.first(), read, err);
        }
        int differing = 0;
        int lists = 0;
        for (String type : types) {
            for (RankingSort sort : RankingSort.values()) {
                for (RankingWindow window : sort.windowed() ? List.of(RankingWindow.values()) : List.of(RankingWindow.ALL)) {
                    lists++;
                    String name = type + " " + sort.wireName() + (sort.windowed() ? " " + window.wireName() : "");
                    String problem = compare(type, sort, window, items);
                    if (problem != null && RankedList.of(sort, window).window() != null) {
                        Thread.sleep(6_000); // a vote may have left the window since the lists last placed it
                        problem = compare(type, sort, window, items);
                    }
                    if (problem != null) {
                        differing++;
                        out.println(name + ": " + problem);
                    }
                }
            }
        }
        out.printf("lists=%d differing=%d items=%d policy=%s%n", lists, differing, items.size(), policy.wireName());
        return differing;
    }

    /** Waits until the node's lists reflect every event read (its Tally-Position), at most a minute. */
    private void awaitPosition(String type, Map<Integer, Long> read, PrintStream err) throws Exception {
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
        err.println("rankings: the node's lists did not reach the end of the log within 60 s; comparing anyway");
    }

    /** Null when the node's list is the log's, item by item and key by key; else where they first differ. */
    private String compare(String type, RankingSort sort, RankingWindow window, Map<String, RankedItem> items) throws Exception {
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
