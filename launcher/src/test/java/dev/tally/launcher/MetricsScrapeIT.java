package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.TallyMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code GET /metrics} of a node that has served votes: a curated scrape well under 600 kB (Tally's own,
 * the JVM's, HTTP's, and only the listed Kafka metrics), static pages labelled with their path, and every
 * metric the shipped alert rules ({@code ops/prometheus/tally-alerts.yml}) and dashboard
 * ({@code ops/grafana/tally-dashboard.json}) use present in it, each rule and panel well formed.
 */
class MetricsScrapeIT {
    private static final Path OPS = Path.of("..", "ops");
    /** A metric name in a PromQL expression: Tally's, the JVM's, the process's, HTTP's or Kafka's. */
    private static final Pattern METRIC = Pattern.compile("\\b(?:tally|kafka|jvm|process|http|system)_[a-z0-9_]+\\b");

    @Test
    void theScrapeIsCuratedAndHoldsEveryMetricTheAlertsAndTheDashboardUse() throws Exception {
        TallyNode node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
        try {
            String run = UUID.randomUUID().toString().substring(0, 8);
            TallyClient client = new TallyClient(node.httpPort());
            for (int i = 0; i < 5; i++) {
                assertThat(client.vote("m-" + run + "-" + i, "metrics-" + run, 1, "set").status()).isEqualTo(200);
            }
            assertThat(client.vote("m-" + run, "{\"item_type\":\"post\"}").status()).isEqualTo(400);
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + node.httpPort();
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode()).as("the demo page").isEqualTo(200);
            Set<String> used = new TreeSet<>();
            for (Map<String, Object> rule : alertRules()) {
                assertThat(rule).as("an alert rule").containsKeys("alert", "expr", "labels", "annotations");
                @SuppressWarnings("unchecked")
                Map<String, Object> labels = (Map<String, Object>) rule.get("labels");
                assertThat(labels.get("severity")).as("%s severity", rule.get("alert")).isIn("warning", "critical");
                @SuppressWarnings("unchecked")
                Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
                assertThat(annotations).as("%s", rule.get("alert")).containsKeys("summary", "description");
                used.addAll(metrics(rule.get("expr").toString()));
            }
            JsonNode dashboard = new ObjectMapper().readTree(OPS.resolve("grafana/tally-dashboard.json").toFile());
            assertThat(dashboard.path("uid").asText()).isNotBlank();
            assertThat(dashboard.path("panels")).isNotEmpty();
            for (JsonNode panel : dashboard.path("panels")) {
                assertThat(panel.path("title").asText()).isNotBlank();
                assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
                panel.path("targets").forEach(t -> used.addAll(metrics(t.path("expr").asText())));
            }
            System.out.println("MetricsScrapeIT: the rules and the dashboard use " + used);

            // the Kafka binders look for metrics registered after them (the stores' RocksDB ones) once a minute
            long deadline = System.nanoTime() + 75_000_000_000L;
            String body;
            Set<String> names;
            do {
                Thread.sleep(200); // the request logger records an answer just after it is written
                body = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                names = body.lines().filter(l -> !l.startsWith("#")).map(l -> l.replaceAll("[{ ].*", ""))
                        .collect(Collectors.toCollection(TreeSet::new));
            } while (!names.containsAll(used) && System.nanoTime() < deadline);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            System.out.printf("MetricsScrapeIT: %,d bytes, %,d lines, %d metric names%n", bytes.length,
                    body.lines().count(), names.size());

            assertThat(bytes.length).as("bytes per scrape").isLessThan(600_000);
            assertThat(names.stream().filter(n -> n.startsWith("kafka_"))).as("only the curated Kafka metrics")
                    .isNotEmpty().allMatch(TallyMetrics.KAFKA_METRICS::contains);
            assertThat(body).contains("route=\"/\",status=\"200\"").doesNotContain("route=\"NOT_FOUND\",status=\"200\"");
            Set<String> scraped = names;
            assertThat(used).as("metrics the rules and the dashboard use, in a real scrape").isNotEmpty()
                    .allSatisfy(m -> assertThat(scraped).as("the scrape has %s", m).contains(m));
        } finally {
            node.close();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> alertRules() throws Exception {
        Map<String, Object> doc = new Yaml().load(Files.readString(OPS.resolve("prometheus/tally-alerts.yml")));
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) doc.get("groups")) {
            assertThat(group).containsKeys("name", "rules");
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        assertThat(rules).isNotEmpty();
        return rules;
    }

    private static Set<String> metrics(String expr) {
        Set<String> out = new TreeSet<>();
        Matcher m = METRIC.matcher(expr);
        while (m.find()) {
            out.add(m.group());
        }
        assertThat(out).as("the metrics of %s", expr).isNotEmpty();
        return out;
    }
}
