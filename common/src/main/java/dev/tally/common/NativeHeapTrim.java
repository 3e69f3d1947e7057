package dev.tally.common;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the memory glibc's malloc keeps after RocksDB frees it back to the system, every {@code interval}: the
 * JVM's own {@code System.trim_native_heap} diagnostic command ({@code malloc_trim}), the one {@code jcmd} runs.
 *
 * <p>Why: RocksDB allocates and frees its blocks, memtables and compaction buffers with malloc all the time;
 * glibc keeps what is freed inside its arenas for reuse and rarely returns it, so the process's resident size
 * rises and falls with that churn however flat what is really in use stays. docs/decisions/0009-native-memory.md.
 *
 * <p>Where the command does not exist (a JDK 17 before 17.0.9) or does nothing (a C library other than glibc),
 * this says so once and stops.
 */
public final class NativeHeapTrim implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NativeHeapTrim.class);
    private static final String DIAGNOSTIC_COMMANDS = "com.sun.management:type=DiagnosticCommand";
    private static final String TRIM = "systemTrimNativeHeap";

    private final ScheduledExecutorService scheduler;

    private NativeHeapTrim(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * {@code TALLY_NATIVE_TRIM_INTERVAL} [10s]: how often the process gives freed native memory back; {@code 0s}
     * turns it off.
     */
    public static Duration interval(Env env) {
        return env.duration("TALLY_NATIVE_TRIM_INTERVAL", Duration.ofSeconds(10), Duration.ZERO, Duration.ofHours(1));
    }

    /** Trims every {@code interval} until closed; an interval of zero trims nothing. */
    public static NativeHeapTrim start(Duration interval) {
        if (interval.isZero()) {
            return new NativeHeapTrim(null);
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tally-native-trim");
            t.setDaemon(true);
            return t;
        });
        NativeHeapTrim trim = new NativeHeapTrim(scheduler);
        scheduler.scheduleWithFixedDelay(trim::trimOrStop, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return trim;
    }

    /**
     * Runs the command once and returns what it reported (e.g. {@code Trim native heap: RSS+Swap: 787M->744M
     * (-43932K)}).
     *
     * @throws JMException where this JVM has no such command
     */
    public static String trimNow() throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Object out = server.invoke(new ObjectName(DIAGNOSTIC_COMMANDS), TRIM, new Object[] {null},
                new String[] {String[].class.getName()});
        return String.valueOf(out).strip();
    }

    private void trimOrStop() {
        try {
            String report = trimNow();
            if (report.contains("not available") || report.contains("Not available")) {
                LOG.info("native heap trimming is not available here ({}); the resident size includes what malloc keeps", report);
                scheduler.shutdown();
            } else {
                LOG.debug("{}", report);
            }
        } catch (JMException | RuntimeException e) {
            LOG.info("native heap trimming is not available in this JVM ({}); the resident size includes what malloc keeps",
                    e.toString());
            scheduler.shutdown();
        }
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
