package dev.tally.common;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of one Tally process, scraped by Prometheus at {@code GET /metrics}. Construct it once per
 * process and pass it to whatever records or binds: one registry, so one scrape shows the JVM, every Kafka
 * client and Streams application of the process, the HTTP timings and Tally's own counters. (Not a static
 * singleton: tests and the in-process multi-instance setups each get their own.)
 *
 * <p>Kafka binders refresh the set of Kafka metrics on one shared daemon thread instead of one thread per
 * binder; {@link #close()} removes their meters and stops it.
 */
public final class TallyMetrics implements AutoCloseable {
    /** The {@code Content-Type} of {@link #scrape()}: Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * Every value of {@code tally_votes_total{outcome}}: the four answers of the vote rules, a refusal by
     * the vote-processor ({@code rejected}) and a 202 whose answer was late ({@code pending}). Fixed, so the
     * series exist (at 0) from the start and {@code rate()} works on the first vote.
     */
    public static final Set<String> OUTCOMES = Set.of("accepted", "changed", "unchanged", "retracted", "rejected", "pending");

    private static final Logger LOG = LoggerFactory.getLogger(TallyMetrics.class);
    /** A problem slug: keeps {@code tally_requests_refused_total{type}} to the slugs the code writes. */
    private static final Pattern SLUG = Pattern.compile("[a-z0-9][a-z0-9-]{0,47}");

    /**
     * The Kafka client and Streams metrics a scrape carries: the ones an operator alerts on or reads in a
     * dashboard ({@code ops/}), out of the ~400 the clients register, which would be most of a scrape
     * (docs/decisions/0012-curated-kafka-metrics.md). Named as Prometheus shows them; bound by
     * {@link CuratedKafkaMetrics}, which reads nothing else (no store metric: see there). Tally's own, the JVM's and
     * HTTP's all stay.
     */
    public static final Set<String> KAFKA_METRICS = Set.of(
            // each Streams application: is it running, are its threads alive
            "kafka_stream_alive_stream_threads", "kafka_stream_failed_stream_threads",
            // each stream thread: throughput, latency, commits, time blocked on Kafka
            "kafka_stream_thread_process_rate", "kafka_stream_thread_process_latency_avg",
            "kafka_stream_thread_process_latency_max", "kafka_stream_thread_commit_rate",
            "kafka_stream_thread_commit_latency_avg", "kafka_stream_thread_commit_latency_max",
            "kafka_stream_thread_punctuate_latency_max", "kafka_stream_thread_poll_rate",
            "kafka_stream_thread_blocked_time_ns_total", "kafka_stream_thread_process_ratio",
            "kafka_stream_thread_commit_ratio", "kafka_stream_thread_poll_ratio", "kafka_stream_thread_punctuate_ratio",
            // tasks: records dropped (bad input), restoration left
            "kafka_stream_task_dropped_records_total", "kafka_stream_task_restore_remaining_records_total",
            // consumers: how far behind, how often rebalanced
            "kafka_consumer_fetch_manager_records_lag_max", "kafka_consumer_coordinator_rebalance_total",
            "kafka_consumer_coordinator_failed_rebalance_total", "kafka_consumer_coordinator_last_rebalance_seconds_ago",
            // producers: failures, latency, transactions
            "kafka_producer_record_error_total", "kafka_producer_record_send_total", "kafka_producer_request_latency_avg",
            "kafka_producer_request_latency_max", "kafka_producer_txn_commit_time_ns_total",
            "kafka_producer_txn_abort_time_ns_total");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScheduledExecutorService kafkaRefresh = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tally-metrics-kafka");
        t.setDaemon(true);
        return t;
    });
    private final List<AutoCloseable> bound = new CopyOnWriteArrayList<>();
    private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();
    private final Map<String, Counter> refusals = new ConcurrentHashMap<>();
    private final Set<String> unknownOutcomes = ConcurrentHashMap.newKeySet();

    public TallyMetrics() {
        List<MeterBinder> jvm = List.of(new JvmMemoryMetrics(), new JvmGcMetrics(), new JvmThreadMetrics(),
                new ClassLoaderMetrics(), new ProcessorMetrics(), new UptimeMetrics(), new FileDescriptorMetrics());
        for (MeterBinder binder : jvm) {
            binder.bindTo(registry);
            if (binder instanceof AutoCloseable closeable) {
                bound.add(closeable); // JvmGcMetrics listens to GC notifications until closed
            }
        }
        for (String outcome : OUTCOMES) {
            outcomes.put(outcome, outcomeCounter(outcome));
        }
        // the one RocksDB cache every store of the process shares (it is never closed: safe to read any time)
        Gauge.builder("tally.rocksdb.block.cache.usage", BoundedRocksDb::usageBytes).baseUnit("bytes")
                .description("Bytes held by the RocksDB cache every store shares (memtables, index and filter blocks, data)")
                .register(registry);
        Gauge.builder("tally.rocksdb.block.cache.capacity", BoundedRocksDb::capacityBytes).baseUnit("bytes")
                .description("Size of the shared RocksDB cache (TALLY_ROCKSDB_MEMORY_MB)").register(registry);
    }

    private Counter outcomeCounter(String outcome) {
        return Counter.builder("tally.votes").description("Answers to POST /v1/votes, by outcome")
                .tag("outcome", outcome).register(registry);
    }

    /** The registry, for binders and meters this class does not know (e.g. the HTTP timer). */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Counts one answer to a vote; {@code outcome} is one of {@link #OUTCOMES}. Anything else (an outcome
     * added to the schema but not here) is counted as {@code other} and logged once, never thrown: the vote
     * is applied by then, and a metric must not turn its answer into a 500.
     */
    public void recordOutcome(String outcome) {
        Counter counter = outcomes.get(outcome);
        if (counter == null) {
            if (unknownOutcomes.size() < 16 && unknownOutcomes.add(String.valueOf(outcome))) { // bounded: a log line per kind
                LOG.warn("vote outcome '{}' is not one of {}: counted as outcome=\"other\"", outcome, OUTCOMES);
            }
            counter = outcomes.computeIfAbsent("other", this::outcomeCounter);
        }
        counter.increment();
    }

    /**
     * Counts one refused request by its problem type slug ({@code invalid-request}, {@code rate-limited}, …).
     * A value that is not a slug is counted as {@code other}: a label must never carry client text.
     */
    public void recordRefusal(String slug) {
        String type = slug != null && SLUG.matcher(slug).matches() ? slug : "other";
        refusals.computeIfAbsent(type, t -> Counter.builder("tally.requests.refused")
                .description("Requests answered with problem+json, by problem type")
                .tag("type", t).register(registry)).increment();
    }

    /** Binds a Kafka Streams application's curated client, thread and task metrics, tagged {@code service=<name>}. */
    public AutoCloseable bindStreams(String name, KafkaStreams streams) {
        return bind(new CuratedKafkaMetrics(streams::metrics, Tags.of("service", name), registry, kafkaRefresh));
    }

    /** Binds a producer's curated metrics (its {@code client-id} is a tag already), tagged {@code service=<name>}. */
    public AutoCloseable bindProducer(String name, Producer<?, ?> producer) {
        return bind(new CuratedKafkaMetrics(producer::metrics, Tags.of("service", name), registry, kafkaRefresh));
    }

    /** Binds a consumer's curated metrics (its {@code client-id} is a tag already), tagged {@code service=<name>}. */
    public AutoCloseable bindConsumer(String name, Consumer<?, ?> consumer) {
        return bind(new CuratedKafkaMetrics(consumer::metrics, Tags.of("service", name), registry, kafkaRefresh));
    }

    private AutoCloseable bind(CuratedKafkaMetrics binder) {
        bound.add(binder);
        return binder;
    }

    /** Everything, in the Prometheus text exposition format ({@link #CONTENT_TYPE}). */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        for (AutoCloseable c : bound) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing metrics binder {} failed", c, e);
            }
        }
        bound.clear();
        kafkaRefresh.shutdownNow();
        registry.close();
    }
}
