package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TallyMetricsTest {

    @Test
    void shouldExposeVoteOutcomesRefusalsAndTheJvm() {
        try (TallyMetrics metrics = new TallyMetrics()) {
            metrics.recordOutcome("accepted");
            metrics.recordRefusal("rate-limited");
            metrics.recordRefusal("rate-limited");
            metrics.recordRefusal("<script>"); // client text never becomes a label

            String scrape = metrics.scrape();

            assertThat(scrape).contains("tally_votes_total{outcome=\"accepted\"} 1.0")
                    .contains("tally_votes_total{outcome=\"pending\"} 0.0") // every outcome exists from the start
                    .contains("tally_requests_refused_total{type=\"rate-limited\"} 2.0")
                    .contains("tally_requests_refused_total{type=\"other\"} 1.0")
                    .contains("jvm_memory_used_bytes")
                    .contains("jvm_gc_")
                    .contains("jvm_threads_live_threads")
                    .contains("process_uptime_seconds")
                    .contains("system_cpu_count")
                    .doesNotContain("<script>");
        }
    }

    @Test
    void shouldCountAnOutcomeOutsideTheFixedSetAsOther() {
        try (TallyMetrics metrics = new TallyMetrics()) {
            metrics.recordOutcome("quarantined");
            metrics.recordOutcome("ACCEPTED");

            assertThat(metrics.scrape()).contains("tally_votes_total{outcome=\"other\"} 2.0")
                    .contains("tally_votes_total{outcome=\"accepted\"} 0.0")
                    .doesNotContain("quarantined").doesNotContain("ACCEPTED");
        }
    }

    /** A Streams application that is built but never started: its metrics exist already, and no broker is needed. */
    @Test
    void shouldBindAKafkaStreamsApplicationTaggedWithItsService(@TempDir Path dir) throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in").to("out");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "metrics-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(dir.resolve("state")).toString());
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        try (TallyMetrics metrics = new TallyMetrics()) {
            AutoCloseable binding = metrics.bindStreams("vote-processor", streams);

            String scrape = metrics.scrape();
            assertThat(scrape).containsPattern("kafka_stream_\\w+\\{[^}]*service=\"vote-processor\"");
            // curated: only the Kafka metrics of the list, however many the clients register
            assertThat(scrape).contains("kafka_stream_alive_stream_threads", "kafka_stream_failed_stream_threads");
            assertThat(scrape.lines().filter(l -> l.startsWith("kafka_")).map(l -> l.replaceAll("[{ ].*", "")).distinct())
                    .isNotEmpty().allMatch(TallyMetrics.KAFKA_METRICS::contains);

            binding.close();
            assertThat(metrics.scrape()).doesNotContain("service=\"vote-processor\"");
        } finally {
            streams.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }
}
