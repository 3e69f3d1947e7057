package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchResultTest {

    @Test
    void theJsonLineHasEveryContractFieldInOrderAndNullForTheMissingBaseline() throws Exception {
        BenchResult r = new BenchResult("uniform", "kafka", 100_000, 40_000, null, 100_000, 100_000, 0, 0,
                120.5, 180.0, 2.1, 700, 50_000, 0, 0, 12_000, 7, 1_000, 2.5, 30_000, null,
                java.util.Map.of("vote-processor", 40.5, "total", 120.0), java.util.Map.of("tally.vote-events", 1.0),
                java.util.Map.of("Produce", 9.5), null);
        String line = r.toJson();
        assertThat(line).doesNotContain("\n");
        JsonNode json = new ObjectMapper().readTree(line);
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        assertThat(names.subList(0, BenchResult.CONTRACT_FIELDS.size())).containsExactlyElementsOf(BenchResult.CONTRACT_FIELDS);
        assertThat(json.get("postgres_votes_per_s").isNull()).isTrue();
        assertThat(json.get("tally_votes_per_s").asLong()).isEqualTo(40_000);
        assertThat(json.get("visible_p99_ms").asDouble()).isEqualTo(180.0);
        assertThat(json.has("chaos_kills")).as("only with --chaos").isFalse();
        assertThat(json.get("warmup_votes").asLong()).isEqualTo(30_000);
        assertThat(json.get("reads_dropped").asLong()).isEqualTo(7);
        assertThat(json.get("cpu_us_per_vote").get("vote-processor").asDouble()).isEqualTo(40.5);
        assertThat(json.get("log_offsets_per_vote").get("tally.vote-events").asDouble()).isEqualTo(1.0);
        assertThat(json.get("broker_requests_per_1000_votes").get("Produce").asDouble()).isEqualTo(9.5);
        assertThat(r.exact()).isTrue();
    }

    @Test
    void missingLatenciesAreNullNotZero() throws Exception {
        BenchResult r = new BenchResult("viral", "http", 10, 5, null, 10, 9, 1, 0, null, null, null, 300,
                5, 0, 0, 0, 0, 0, 2.0, 0, 3, java.util.Map.of(), null, null, java.util.Map.of("connections", 1000));
        JsonNode json = new ObjectMapper().readTree(r.toJson());
        assertThat(json.get("visible_p50_ms").isNull()).isTrue();
        assertThat(json.get("read_p99_ms").isNull()).isTrue();
        assertThat(json.get("chaos_kills").asInt()).isEqualTo(3);
        assertThat(r.exact()).isFalse();
    }
}
