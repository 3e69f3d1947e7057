package dev.tally.launcher.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's report: the contract's fields in the contract's order, then a few extras. {@link #toJson}
 * is the one JSON line {@code ./tally bench} ends with.
 *
 * @param acknowledged    acknowledged votes, the warm-up's included: {@code counted}, {@code lost} and
 *                        {@code double_counted} audit every vote of the run, while the rates, latencies and
 *                        CPU figures cover the measured votes only
 * @param votesPerSecond  acknowledged votes per second, end to end: from the first send until every
 *                        acknowledged vote is visible in the views
 * @param ackVotesPerSecond acknowledged votes per second of the send phase alone
 * @param viewMismatches  items whose view (latest {@code tally.item-counts}) differs from the log's totals
 * @param readsDropped    reads of the read load that were due while too many were unanswered, and not sent
 * @param warmupVotes     votes of the warm-up (rounds until the JIT compiled little under load), in {@code acknowledged}
 *                        and the audit but in no rate, latency or CPU figure
 * @param chaosKills      SIGKILLs delivered to vote-processor processes ({@code --chaos}), else null
 * @param cpuMicrosPerVote CPU µs per acknowledged vote by stage ({@link CpuAccount}), from the first send until
 *                        the views caught up
 * @param logOffsetsPerVote what the broker appended per acknowledged vote by topic ({@link RecordAccount}: records and
 *                        transaction markers), over the same span
 * @param requestsPerThousandVotes the requests the embedded broker served per 1,000 acknowledged votes by type
 *                        ({@link RequestAccount}), over the same span
 * @param http            the HTTP path's own figures (connections, answer latency percentiles from each vote's due
 *                        time, and with {@code --find-rate} the steps and the highest sustained rate), else null
 */
public record BenchResult(String workload, String path, long votes, long votesPerSecond, Long postgresVotesPerSecond,
                          long acknowledged, long counted, long lost, long doubleCounted,
                          Double visibleP50Ms, Double visibleP99Ms, Double readP99Ms, long rssMb,
                          long ackVotesPerSecond, long failed, long viewMismatches, long reads, long readsDropped, long visibleSamples,
                          double seconds, long warmupVotes, Integer chaosKills,
                          Map<String, Double> cpuMicrosPerVote, Map<String, Double> logOffsetsPerVote,
                          Map<String, Double> requestsPerThousandVotes, Map<String, Object> http) {

    /** The fields the contract requires, in its order. */
    public static final List<String> CONTRACT_FIELDS = List.of("workload", "votes", "tally_votes_per_s",
            "postgres_votes_per_s", "acknowledged", "counted", "lost", "double_counted", "visible_p50_ms",
            "visible_p99_ms", "read_p99_ms", "rss_mb");

    private static final ObjectMapper JSON = new ObjectMapper();

    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", workload);
        m.put("votes", votes);
        m.put("tally_votes_per_s", votesPerSecond);
        m.put("postgres_votes_per_s", postgresVotesPerSecond);
        m.put("acknowledged", acknowledged);
        m.put("counted", counted);
        m.put("lost", lost);
        m.put("double_counted", doubleCounted);
        m.put("visible_p50_ms", visibleP50Ms);
        m.put("visible_p99_ms", visibleP99Ms);
        m.put("read_p99_ms", readP99Ms);
        m.put("rss_mb", rssMb);
        m.put("path", path);
        m.put("ack_votes_per_s", ackVotesPerSecond);
        m.put("failed", failed);
        m.put("view_mismatches", viewMismatches);
        m.put("reads", reads);
        m.put("reads_dropped", readsDropped);
        m.put("visible_samples", visibleSamples);
        m.put("seconds", seconds);
        m.put("warmup_votes", warmupVotes);
        if (chaosKills != null) {
            m.put("chaos_kills", chaosKills);
        }
        m.put("cpu_us_per_vote", cpuMicrosPerVote);
        if (logOffsetsPerVote != null) {
            m.put("log_offsets_per_vote", logOffsetsPerVote);
        }
        if (requestsPerThousandVotes != null) {
            m.put("broker_requests_per_1000_votes", requestsPerThousandVotes);
        }
        if (http != null) {
            m.put("http", http);
        }
        return m;
    }

    /** This result with the PostgreSQL baseline's votes per second filled in. */
    public BenchResult withPostgres(long postgresVotesPerSecond) {
        return new BenchResult(workload, path, votes, votesPerSecond, postgresVotesPerSecond, acknowledged, counted, lost,
                doubleCounted, visibleP50Ms, visibleP99Ms, readP99Ms, rssMb, ackVotesPerSecond, failed, viewMismatches, reads,
                readsDropped, visibleSamples, seconds, warmupVotes, chaosKills, cpuMicrosPerVote, logOffsetsPerVote,
                requestsPerThousandVotes, http);
    }

    /** This result with one more figure of the HTTP path ({@code http.<name>}). */
    public BenchResult withHttp(String name, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(http == null ? Map.of() : http);
        more.put(name, value);
        return new BenchResult(workload, path, votes, votesPerSecond, postgresVotesPerSecond, acknowledged, counted, lost,
                doubleCounted, visibleP50Ms, visibleP99Ms, readP99Ms, rssMb, ackVotesPerSecond, failed, viewMismatches, reads,
                readsDropped, visibleSamples, seconds, warmupVotes, chaosKills, cpuMicrosPerVote, logOffsetsPerVote,
                requestsPerThousandVotes, more);
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(fields());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the run showed every acknowledged vote counted once and the views equal to the log. */
    public boolean exact() {
        return lost == 0 && doubleCounted == 0 && viewMismatches == 0;
    }
}
