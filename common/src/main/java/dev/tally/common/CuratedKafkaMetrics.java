package dev.tally.common;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The Kafka client or Streams metrics of {@link TallyMetrics#KAFKA_METRICS}, and only those (Prometheus
 * name: {@code kafka_<group without -metrics>_<name>}, {@code -} as {@code _}; the metric's tags and
 * {@code service}): a {@code -total} as a counter, the rest as gauges. Every minute it looks for metrics that appeared (a task, a thread, a
 * partition) and drops those that went.
 *
 * <p>Why not Micrometer's {@code KafkaStreamsMetrics}: to decide which metrics to bind it reads the value
 * of every one, every minute, and a Kafka Streams 4.4 transactional store's {@code uncommitted-bytes}
 * reads a RocksDB write batch that may just have been freed: a SIGSEGV in {@code WriteBatch.getDataSize}
 * from that thread takes the whole JVM down. This binder picks by name and reads only what it lists, and
 * lists no store metric (docs/decisions/0012-curated-kafka-metrics.md).
 */
final class CuratedKafkaMetrics implements AutoCloseable {
    private static final long REFRESH_SECONDS = 60;

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private final Tags tags;
    private final MeterRegistry registry;
    private final Map<MetricName, Meter> bound = new HashMap<>();
    private final ScheduledFuture<?> refresh;

    CuratedKafkaMetrics(Supplier<Map<MetricName, ? extends Metric>> metrics, Tags tags, MeterRegistry registry,
                        ScheduledExecutorService scheduler) {
        this.metrics = metrics;
        this.tags = tags;
        this.registry = registry;
        bindNew();
        this.refresh = scheduler.scheduleAtFixedRate(this::bindNew, REFRESH_SECONDS, REFRESH_SECONDS, TimeUnit.SECONDS);
    }

    /** The Prometheus name a Kafka metric is known by in {@link TallyMetrics#KAFKA_METRICS}. */
    static String prometheusName(MetricName name) {
        return ("kafka_" + name.group().replaceFirst("-metrics$", "") + "_" + name.name()).replace('-', '_');
    }

    private synchronized void bindNew() {
        Map<MetricName, ? extends Metric> now = Map.copyOf(metrics.get());
        // one set of tag keys per name, as Prometheus requires: the most specific (partition over client)
        Map<String, Set<String>> keys = new HashMap<>();
        now.keySet().stream().filter(n -> TallyMetrics.KAFKA_METRICS.contains(prometheusName(n)))
                .forEach(n -> keys.merge(prometheusName(n), n.tags().keySet(), (a, b) -> a.size() >= b.size() ? a : b));
        now.forEach((name, metric) -> {
            String prometheus = prometheusName(name);
            if (!bound.containsKey(name) && name.tags().keySet().equals(keys.get(prometheus))) {
                List<Tag> all = new ArrayList<>();
                tags.forEach(all::add);
                name.tags().forEach((k, v) -> all.add(Tag.of(k, v)));
                String meter = prometheus.replace('_', '.');
                bound.put(name, meter.endsWith(".total") // a count: Prometheus names a counter <name>_total
                        ? FunctionCounter.builder(meter.substring(0, meter.length() - ".total".length()), metric,
                                CuratedKafkaMetrics::value).description(name.description()).tags(all).register(registry)
                        : Gauge.builder(meter, metric, CuratedKafkaMetrics::value).description(name.description())
                                .tags(all).strongReference(true).register(registry));
            }
        });
        bound.entrySet().removeIf(e -> {
            if (now.containsKey(e.getKey())) {
                return false;
            }
            registry.remove(e.getValue());
            return true;
        });
    }

    private static double value(Metric metric) {
        Object v = metric.metricValue();
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    @Override
    public synchronized void close() {
        refresh.cancel(false);
        bound.values().forEach(registry::remove);
        bound.clear();
    }
}
