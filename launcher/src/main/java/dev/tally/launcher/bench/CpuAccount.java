package dev.tally.launcher.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Where the bench process's CPU goes, by stage: the CPU time of every Java thread, grouped by what its
 * name says it serves; the JVM's compiler threads as {@code jit} and its collector and VM thread as
 * {@code gc-and-vm} (the serial collector runs in the VM thread), read from {@code /proc} on Linux; and
 * the rest of the process (RocksDB's native threads, the JVM's other own threads) as {@code jvm}. Two
 * snapshots around a run, with the threads read every {@value #SAMPLE_MILLIS} ms between them, give CPU
 * microseconds per vote, a figure that moves far less with a busy host than votes per second do.
 */
public final class CpuAccount {
    /** Stage → thread-name pattern, first match wins; the order is the report's. */
    private static final List<Map.Entry<String, Pattern>> STAGES = List.of(
            Map.entry("vote-processor", Pattern.compile("vote-processor")),
            Map.entry("fraud-detector", Pattern.compile("fraud-detector")),
            Map.entry("count-projector", Pattern.compile("count-projector")),
            Map.entry("ranked-lists", Pattern.compile("-rankings-(all|trusted|signed-in)-v\\d+-")),
            Map.entry("broker", Pattern.compile("kafka-request-handler|kafka-network-thread|AddPartitions|TxnMarker"
                    + "|group-coordinator|share-coordinator|quorum|raft|metadata|ReplicaFetcher|kafka-log|log-"
                    + "|kafka-scheduler|broker-|controller|executor-|ExpirationReaper|transaction-")),
            // the webhook sender's own thread and DNS lookups, its Jetty client's threads; the webhook bench's receiver
            Map.entry("webhook-sender", Pattern.compile("^tally-webhook")),
            Map.entry("webhook-http-client", Pattern.compile("^HttpClient@")),
            Map.entry("webhook-receiver", Pattern.compile("^JettyServerThreadPool")),
            Map.entry("views-and-ranking", Pattern.compile("tally-view|ranking|live-updates|outcome-listener")),
            // the door: Jetty's threads, the command batcher and the producer that appends its command batches
            Map.entry("http-server", Pattern.compile("^tally-http|^qtp|JettyScheduler|command-batcher|\\| tally-ingest-api$")),
            // the bench's main thread paces and sends the HTTP path's votes (HttpLoad runs on it)
            Map.entry("load-generator", Pattern.compile("^bench-|tally-bench|HttpClient|^main$")));

    /** How often the live threads' CPU times are read, so that a thread that ends during the run still counts. */
    private static final long SAMPLE_MILLIS = 250;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final Map<Long, Seen> lastSeen = new ConcurrentHashMap<>();
    private Map<Long, Seen> startThreads;
    private Map<String, Long> startNative;
    private long startProcess;
    private Thread sampler;

    /** A Java thread's stage and CPU nanoseconds when last read. */
    private record Seen(String stage, long nanos) {}

    /**
     * Takes the first snapshot, and reads every live thread's CPU time every {@value #SAMPLE_MILLIS} ms until
     * {@link #microsPerVote}: a thread that ends during the run (the load's senders, once the last vote is sent)
     * keeps the time it had when last read, at most that long short, in its own stage, not in {@code jvm}.
     */
    public CpuAccount start() {
        startThreads = javaThreads();
        startNative = nativeThreadNanos();
        startProcess = os.getProcessCpuTime();
        lastSeen.putAll(startThreads);
        sampler = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(SAMPLE_MILLIS);
                    lastSeen.putAll(javaThreads());
                }
            } catch (InterruptedException e) {
                // stopped by microsPerVote
            }
        }, "bench-cpu-account");
        sampler.setDaemon(true);
        sampler.start();
        return this;
    }

    /** CPU µs per vote by stage since {@link #start}, {@code total} last. */
    public Map<String, Double> microsPerVote(long votes) {
        sampler.interrupt();
        Map<Long, Seen> end = new HashMap<>(lastSeen);
        end.putAll(javaThreads()); // the threads alive now, read now; those that ended, as last read
        Map<String, Long> byStage = new LinkedHashMap<>();
        STAGES.forEach(s -> byStage.put(s.getKey(), 0L));
        byStage.put("other-threads", 0L);
        long sum = 0;
        for (Map.Entry<Long, Seen> t : end.entrySet()) {
            Seen before = startThreads.get(t.getKey());
            long nanos = t.getValue().nanos() - (before == null ? 0 : before.nanos());
            sum += nanos;
            byStage.merge(t.getValue().stage(), nanos, Long::sum);
        }
        // the JVM's own threads are no Java threads: on Linux their CPU time is read from /proc
        long jit = 0;
        long gc = 0;
        for (Map.Entry<String, Long> t : nativeThreadNanos().entrySet()) {
            long nanos = t.getValue() - startNative.getOrDefault(t.getKey(), 0L);
            if (t.getKey().startsWith("C1 CompilerThre") || t.getKey().startsWith("C2 CompilerThre")) {
                jit += nanos;
            } else if (t.getKey().equals("VM Thread") || t.getKey().startsWith("GC Thread") || t.getKey().startsWith("G1 ")) {
                gc += nanos;
            }
        }
        byStage.put("jit", jit);
        byStage.put("gc-and-vm", gc);
        sum += jit + gc;
        // the process's CPU time is counted in coarser ticks than a thread's: never let the total fall below its parts
        long process = Math.max(os.getProcessCpuTime() - startProcess, sum);
        byStage.put("jvm", process - sum); // RocksDB's threads, the JVM's other own threads
        byStage.put("total", process);
        Map<String, Double> out = new LinkedHashMap<>();
        byStage.forEach((stage, nanos) -> out.put(stage, Math.round(nanos / 1e3 / Math.max(1, votes) * 10) / 10.0));
        return out;
    }

    /** Every live Java thread's stage and CPU nanoseconds, by thread id. */
    private Map<Long, Seen> javaThreads() {
        Map<Long, Seen> byId = new HashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long cpu = threads.getThreadCpuTime(info.getThreadId());
            if (cpu > 0) {
                byId.put(info.getThreadId(), new Seen(stageOf(info.getThreadName()), cpu));
            }
        }
        return byId;
    }

    /**
     * CPU nanoseconds of this process's live threads by name, from {@code /proc/self/task} (utime + stime,
     * in clock ticks of 10 ms); empty where there is no {@code /proc}.
     */
    static Map<String, Long> nativeThreadNanos() {
        Map<String, Long> byName = new LinkedHashMap<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return byName;
        }
        for (java.io.File task : tasks) {
            try {
                String name = java.nio.file.Files.readString(task.toPath().resolve("comm")).strip();
                String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                byName.merge(name, ticks * 10_000_000L, Long::sum);
            } catch (java.io.IOException | RuntimeException e) {
                // the thread ended meanwhile
            }
        }
        return byName;
    }

    static String stageOf(String threadName) {
        for (Map.Entry<String, Pattern> s : STAGES) {
            if (s.getValue().matcher(threadName).find()) {
                return s.getKey();
            }
        }
        return "other-threads";
    }
}
