package dev.tally.launcher.bench;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The requests the run's embedded broker served, by type: the growth of its {@code RequestsPerSec} meters
 * ({@code kafka.network:type=RequestMetrics}, one per request type and version, in this process's platform MBean
 * server) between two snapshots, per 1,000 votes. Beside {@link RecordAccount}'s offsets it shows how many requests
 * carried them: at a paced rate each produce and each fetch carries fewer records. A broker in another process shows
 * as a total of 0.
 */
public final class RequestAccount {
    private static final String METERS = "kafka.network:type=RequestMetrics,name=RequestsPerSec,*";
    private final MBeanServer server;
    private Map<String, Long> start;

    public RequestAccount() {
        this(ManagementFactory.getPlatformMBeanServer());
    }

    RequestAccount(MBeanServer server) {
        this.server = server;
    }

    /** Takes the first snapshot. */
    public RequestAccount start() {
        start = counts();
        return this;
    }

    /** Requests per 1,000 votes since {@link #start}, by type (largest first, types with none left out), {@code total} last. */
    public Map<String, Double> perThousandVotes(long votes) {
        return RecordAccount.growth(start, counts(), votes / 1000.0, 10);
    }

    /**
     * Each request type's count, summed over its versions. A fetch counts under {@code Fetch} and again under
     * {@code FetchConsumer} or {@code FetchFollower}; only the second pair is kept.
     */
    private Map<String, Long> counts() {
        Map<String, Long> byType = new HashMap<>();
        try {
            for (ObjectName meter : server.queryNames(new ObjectName(METERS), null)) {
                String type = meter.getKeyProperty("request");
                if (type != null && !type.equals("Fetch")) {
                    byType.merge(type, ((Number) server.getAttribute(meter, "Count")).longValue(), Long::sum);
                }
            }
        } catch (JMException e) {
            throw new IllegalStateException("reading the broker's request meters: " + e, e);
        }
        return byType;
    }
}
