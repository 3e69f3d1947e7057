package dev.tally.launcher.bench;

import dev.tally.common.KafkaSettings;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * What a run appended to the broker, by topic: the growth of every topic's log end offsets (Tally's topics, the
 * Streams applications' changelogs, {@code __consumer_offsets} and {@code __transaction_state}) between two
 * snapshots, per vote. An offset is a record or a transaction marker (each exactly-once commit writes one to
 * every partition its transaction touched), so the figure is what the broker appended and every reader fetches.
 */
public final class RecordAccount {
    private final KafkaSettings kafka;
    private Map<String, Long> start;

    public RecordAccount(KafkaSettings kafka) {
        this.kafka = kafka;
    }

    /** Takes the first snapshot. */
    public RecordAccount start() throws InterruptedException {
        start = endOffsets();
        return this;
    }

    /** Offsets appended per vote since {@link #start}, by topic (largest first, topics that gained none left out), {@code total} last. */
    public Map<String, Double> perVote(long votes) throws InterruptedException {
        return perVote(start, endOffsets(), votes);
    }

    static Map<String, Double> perVote(Map<String, Long> start, Map<String, Long> end, long votes) {
        return growth(start, end, votes, 1000);
    }

    /**
     * Each key's growth from {@code start} to {@code end} divided by {@code per}, to the nearest 1/{@code precision}:
     * largest first, keys that did not grow left out, {@code total} last.
     */
    static Map<String, Double> growth(Map<String, Long> start, Map<String, Long> end, double per, int precision) {
        Map<String, Long> gained = new HashMap<>();
        end.forEach((key, n) -> gained.put(key, n - start.getOrDefault(key, 0L)));
        Map<String, Double> out = new LinkedHashMap<>();
        gained.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> out.put(e.getKey(), round(e.getValue(), per, precision)));
        out.put("total", round(gained.values().stream().mapToLong(Long::longValue).sum(), per, precision));
        return out;
    }

    private static double round(long n, double per, int precision) {
        return Math.round(n * (double) precision / (per > 0 ? per : 1)) / (double) precision; // no votes: per run
    }

    /** Every topic's log end offsets, summed over its partitions. */
    private Map<String, Long> endOffsets() throws InterruptedException {
        try (Admin admin = Admin.create(kafka.clientProps("tally-bench-records"))) {
            var names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS).forEach((name, d) ->
                    d.partitions().forEach(p -> latest.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
            Map<String, Long> byTopic = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> byTopic.merge(tp.topic(), info.offset(), Long::sum));
            return byTopic;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("reading the topics' end offsets: " + e, e);
        }
    }
}
