package dev.tally.launcher.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.launcher.TallyNode;
import io.javalin.Javalin;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ./tally bench --webhooks N}: N subscribers, each watching its share of {@value Workload#HOOKED_ITEMS} items,
 * on a node in this process, with one receiver (Jetty, here) answering every delivery at once. Measures the
 * Kafka-path vote rate with the subscriptions active against paused (alternated: paused, active, active, paused),
 * then a paced load with a probe vote over HTTP every 100 ms: vote → delivered is the time from the probe's answer
 * to the first delivery of its item whose {@code position} reflects it. The receiver checks that {@code seq} only
 * grows per subscriber and item.
 */
public final class WebhookBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long RATE_VOTES = 300_000;

    private WebhookBench() {}

    /** What it found. */
    public record Result(int subscribers, int items, int coalesceMs, List<Long> pausedPerSecond, List<Long> activePerSecond,
                         double ratio, long deliveries, double deliveriesPerSecond, long probes, long probesSeen,
                         double deliveredP50Ms, double deliveredP99Ms, int pacedRate, long seqViolations,
                         Map<String, Double> cpuMicrosPerVote, Map<String, Double> cpuMicrosPerDelivery, long rssMb) {
        public String toJson() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("subscribers", subscribers);
            out.put("items", items);
            out.put("coalesce_ms", coalesceMs);
            out.put("kafka_path_votes_per_s_paused", pausedPerSecond);
            out.put("kafka_path_votes_per_s_active", activePerSecond);
            out.put("active_to_paused", ratio);
            out.put("paced_votes_per_s", pacedRate);
            out.put("deliveries", deliveries);
            out.put("deliveries_per_s", Math.round(deliveriesPerSecond));
            out.put("probes", probes);
            out.put("probes_delivered", probesSeen);
            out.put("vote_to_delivered_p50_ms", deliveredP50Ms);
            out.put("vote_to_delivered_p99_ms", deliveredP99Ms);
            out.put("seq_violations", seqViolations);
            out.put("cpu_us_per_vote", cpuMicrosPerVote);
            out.put("cpu_us_per_delivery", cpuMicrosPerDelivery);
            out.put("rss_mb", rssMb);
            try {
                return JSON.writeValueAsString(out);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public static Result run(Path dir, Map<String, String> vars, int subscribers, int rate, int seconds, int coalesceMs,
                             PrintStream err) throws Exception {
        EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("kafka"), 0);
        vars.put("TALLY_BOOTSTRAP", broker.bootstrap());
        try (TallyNode node = TallyNode.start(Env.of(vars), EnumSet.allOf(TallyNode.Service.class));
             Receiver receiver = new Receiver()) {
            if (!node.awaitReady(Duration.ofSeconds(120))) {
                throw new IllegalStateException("the node was not ready within 120 s");
            }
            KafkaSettings kafka = node.runtime().kafka();
            Admin admin = new Admin("http://127.0.0.1:" + node.httpPort(), node.adminToken());
            int per = Workload.HOOKED_ITEMS / subscribers;
            List<String> ids = new ArrayList<>();
            for (int s = 0; s < subscribers; s++) {
                StringBuilder items = new StringBuilder();
                for (int i = s * per; i < (s + 1) * per; i++) {
                    items.append(items.isEmpty() ? "" : ",").append("\"post:h").append(i).append('"');
                }
                JsonNode sub = admin.send("POST", "/v1/admin/webhooks", "{\"url\":\"" + receiver.url(s) + "\",\"items\":["
                        + items + "],\"coalesce_ms\":" + coalesceMs + "}");
                ids.add(sub.get("id").asText());
            }
            err.printf("bench: %d subscribers of %d items each, coalesce_ms %d, one receiver at %s%n", subscribers, per,
                    coalesceMs, receiver.url(0));
            String group = kafka.id("vote-processor");
            AtomicLong seq = new AtomicLong();
            err.println("bench: warming up with the subscriptions active…");
            unpaced(kafka, group, seq, RATE_VOTES / 2);
            List<Long> paused = new ArrayList<>();
            List<Long> active = new ArrayList<>();
            for (boolean on : new boolean[] {false, true, true, false}) {
                for (String id : ids) {
                    admin.send("PATCH", "/v1/admin/webhooks/" + id, "{\"status\":\"" + (on ? "active" : "paused") + "\"}");
                }
                receiver.awaitQuiet(); // the senders see the change and send what was pending
                long perSecond = unpaced(kafka, group, seq, RATE_VOTES);
                (on ? active : paused).add(perSecond);
                err.printf("bench: Kafka path, subscriptions %s: %,d votes/s%n", on ? "active" : "paused", perSecond);
            }
            double ratio = Math.round(100.0 * (active.get(0) + active.get(1)) / (paused.get(0) + paused.get(1))) / 100.0;
            for (String id : ids) {
                admin.send("PATCH", "/v1/admin/webhooks/" + id, "{\"status\":\"active\"}");
            }
            Thread.sleep(3_000);

            err.printf("bench: %,d votes/s for %d s, a probe vote over HTTP every 100 ms…%n", rate, seconds);
            receiver.resetCounts();
            CpuAccount cpu = new CpuAccount().start();
            long loadStart = System.nanoTime();
            Thread load = new Thread(() -> {
                try {
                    KafkaLoad.run(kafka, Workload.HOOKED, 1, new LoadStats(seq.get(), (long) rate * seconds, Long.MAX_VALUE, rate, false), null);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "bench-webhook-load");
            load.start();
            HttpClient http = HttpClient.newHttpClient();
            SplittableRandom random = new SplittableRandom(42);
            long probes = 0;
            while (load.isAlive()) {
                long sent = System.nanoTime();
                String item = "h" + random.nextInt(Workload.HOOKED_ITEMS);
                var answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/votes"))
                        .header("Content-Type", "application/json").header("X-Tally-User", "probe-" + probes)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"" + item + "\",\"vote_value\":1}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    String position = JSON.readTree(answer.body()).get("position").asText();
                    int colon = position.indexOf(':');
                    receiver.probe("post:" + item, Integer.parseInt(position.substring(0, colon)),
                            Long.parseLong(position.substring(colon + 1)), sent);
                    probes++;
                }
                LoadStats.sleepUntil(sent + Duration.ofMillis(100).toNanos());
            }
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            Thread.sleep(coalesceMs + 5_000L); // the last deliveries
            long pacedVotes = (long) rate * seconds + probes;
            Map<String, Double> perVote = cpu.microsPerVote(pacedVotes);
            double perDelivery = receiver.count() == 0 ? 0 : (double) pacedVotes / receiver.count();
            Map<String, Double> cpuPerDelivery = new LinkedHashMap<>();
            for (String stage : List.of("webhook-sender", "webhook-http-client", "webhook-receiver")) {
                cpuPerDelivery.put(stage, Math.round(perVote.getOrDefault(stage, 0.0) * perDelivery * 10) / 10.0);
            }
            err.printf("bench: CPU µs per vote %s; per delivery %s%n", perVote, cpuPerDelivery);
            Latencies delivered = receiver.delivered();
            err.printf("bench: vote → delivered p50 %.0f ms, p99 %.0f ms over %d of %d probes; %,d deliveries (%,.0f/s);"
                            + " seq went back %d times%n", delivered.percentileMillis(50), delivered.percentileMillis(99),
                    delivered.count(), probes, receiver.count(), receiver.count() / loadSeconds, receiver.violations());
            return new Result(subscribers, Workload.HOOKED_ITEMS, coalesceMs, paused, active, ratio, receiver.count(),
                    receiver.count() / loadSeconds, probes, delivered.count(), delivered.percentileMillis(50),
                    delivered.percentileMillis(99), rate, receiver.violations(), perVote, cpuPerDelivery, ProcessMemory.selfRssMb());
        } finally {
            broker.close();
        }
    }

    /** Sends {@code votes} as fast as the broker takes them and waits until they are processed: votes per second. */
    private static long unpaced(KafkaSettings kafka, String group, AtomicLong seq, long votes) throws Exception {
        long t0 = System.nanoTime();
        KafkaLoad.run(kafka, Workload.HOOKED, 1, new LoadStats(seq.get(), votes, Long.MAX_VALUE, 0, false), null);
        seq.addAndGet(votes);
        if (!EventLog.awaitProcessed(kafka, group, Duration.ofMinutes(10))) {
            throw new IllegalStateException("the votes were not processed within 10 minutes");
        }
        return Math.round(votes / ((System.nanoTime() - t0) / 1e9));
    }

    /** The admin API, for the subscriptions. */
    private record Admin(String base, String token) {
        JsonNode send(String method, String path, String json) throws Exception {
            var response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() >= 300) {
                throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body());
        }
    }

    /** Answers every delivery 200 at once; checks seq per subscriber and item, and times the probes. */
    private static final class Receiver implements AutoCloseable {
        private final Javalin server;
        private final Map<String, Long> lastSeq = new ConcurrentHashMap<>();
        private final Map<String, long[]> probes = new ConcurrentHashMap<>(); // item -> {partition, offset, sentNanos}
        private final Latencies delivered = new Latencies();
        private final AtomicLong count = new AtomicLong();
        private final AtomicLong violations = new AtomicLong();

        Receiver() {
            server = Javalin.create(cfg -> {
                cfg.startup.showJavalinBanner = false;
                cfg.jetty.host = "127.0.0.1";
                cfg.jetty.port = 0;
                cfg.routes.post("/hook/{n}", ctx -> {
                    // a receiver as cheap as can be: it shares the two cores with the node it measures
                    String body = ctx.body();
                    String item = field(body, "item_type") + ":" + field(body, "item_id");
                    long seq = Long.parseLong(field(body, "seq"));
                    Long before = lastSeq.put(ctx.pathParam("n") + "/" + item, seq);
                    if (before != null && before > seq) {
                        violations.incrementAndGet();
                    }
                    count.incrementAndGet();
                    long[] probe = probes.get(item);
                    if (probe != null && reflects(field(body, "position"), (int) probe[0], probe[1])
                            && probes.remove(item, probe)) {
                        synchronized (delivered) {
                            delivered.recordNanos(System.nanoTime() - probe[2]);
                        }
                    }
                    ctx.status(200);
                });
            }).start();
        }

        /** A top-level field of a delivery's flat JSON, as written: a string's content or a number. */
        private static String field(String body, String name) {
            int at = body.indexOf("\"" + name + "\":") + name.length() + 3;
            if (body.charAt(at) == '"') {
                return body.substring(at + 1, body.indexOf('"', at + 1));
            }
            int end = at;
            while (end < body.length() && Character.isDigit(body.charAt(end))) {
                end++;
            }
            return body.substring(at, end);
        }

        private static boolean reflects(String position, int partition, long offset) {
            for (String part : position.split(",")) {
                int colon = part.indexOf(':');
                if (colon > 0 && Integer.parseInt(part.substring(0, colon)) == partition) {
                    return Long.parseLong(part.substring(colon + 1)) >= offset;
                }
            }
            return false;
        }

        String url(int subscriber) {
            return "http://127.0.0.1:" + server.port() + "/hook/" + subscriber;
        }

        void probe(String item, int partition, long offset, long sentNanos) {
            probes.put(item, new long[] {partition, offset, sentNanos});
        }

        /** Waits until a second passes without a delivery (at most two minutes). */
        void awaitQuiet() throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            long before;
            do {
                before = count.get();
                Thread.sleep(1_000);
            } while (count.get() != before && System.nanoTime() < deadline);
        }

        void resetCounts() {
            count.set(0);
        }

        long count() {
            return count.get();
        }

        long violations() {
            return violations.get();
        }

        Latencies delivered() {
            synchronized (delivered) {
                return delivered;
            }
        }

        @Override
        public void close() {
            server.stop();
        }
    }
}
