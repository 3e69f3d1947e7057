package dev.tally.launcher.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Live streams at audience scale, against {@code ./tally up} in a child process (its memory measured from outside,
 * its sockets apart from the clients'): {@code watchers} streams on one item, then a burst of {@code burst} votes on
 * it by as many voters within two seconds; each stream's delay from the last vote sent to the final count arriving.
 * Then the HTTP vote rate with those streams open and idle against the rate without them, in alternated runs.
 */
public final class StreamBench {
    /** What it measured. Memory in MB of the node's resident set; times in ms; rates in votes per second. */
    public record Result(int watchers, int opened, int refused, double openSeconds, long rssBeforeMb, long rssWithStreamsMb,
                         int burst, double burstSeconds, int sawFinal, Double p50Ms, Double p99Ms, Double maxMs,
                         int mostEvents, List<Long> rateWith, List<Long> rateWithout) {
        public double kbPerStream() {
            return opened == 0 ? 0 : (rssWithStreamsMb - rssBeforeMb) * 1024.0 / opened;
        }

        /** The mean rate with the streams open over the one without them. */
        public double rateRatio() {
            return mean(rateWithout) == 0 ? 0 : mean(rateWith) / mean(rateWithout);
        }

        public String toJson() {
            return String.format(Locale.ROOT, "{\"watchers\":%d,\"opened\":%d,\"refused\":%d,\"open_s\":%.1f,"
                            + "\"rss_mb\":{\"before\":%d,\"with_streams\":%d,\"growth\":%d,\"kb_per_stream\":%.1f},"
                            + "\"burst\":{\"votes\":%d,\"sent_in_s\":%.2f,\"saw_final\":%d,\"after_last_vote_ms\":{\"p50\":%s,"
                            + "\"p99\":%s,\"max\":%s},\"most_events_per_stream\":%d},"
                            + "\"votes_per_s\":{\"with_idle_streams\":%s,\"without\":%s,\"ratio\":%.3f}}",
                    watchers, opened, refused, openSeconds, rssBeforeMb, rssWithStreamsMb, rssWithStreamsMb - rssBeforeMb,
                    kbPerStream(), burst, burstSeconds, sawFinal, p50Ms, p99Ms, maxMs, mostEvents, rateWith, rateWithout,
                    rateRatio());
        }
    }

    private static final int CONNECTS_AT_ONCE = 200;
    private static final int EVENT_STREAM_HEARTBEAT_SECONDS = 15;
    /** As the HTTP bench: enough votes unanswered at once that the rate is what the node's CPU allows, not its answer time. */
    private static final int VOTE_CONNECTIONS = 1_000;

    private StreamBench() {}

    /**
     * @param rateSeconds how long each vote-rate run sends
     * @param pairs       vote-rate runs with and without the streams, alternated
     */
    public static Result run(Path dir, Map<String, String> env, int watchers, int burst, int rateSeconds, int pairs,
                             PrintStream err) throws Exception {
        Map<String, String> vars = new HashMap<>(env);
        vars.put("TALLY_MAX_STREAMS", Integer.toString(Math.max(watchers, 1)));
        try (ChildNode node = new ChildNode(dir, vars)) {
            node.start();
            double ready = node.awaitReady();
            if (ready < 0) {
                throw new IllegalStateException("the node did not get ready (log " + node.log(0) + ")");
            }
            err.printf("streams: node ready in %.1f s (pid %d, log %s)%n", ready, node.pid(), node.log(0));
            String item = "watched";
            String url = node.baseUrl() + "/v1/stream?items=" + Workload.ITEM_TYPE + ":" + item;
            try (HttpDriver http = new HttpDriver(node.baseUrl(), VOTE_CONNECTIONS, "streams-votes");
                 StreamWatchers streams = new StreamWatchers("streams-watchers")) {
                long seq = warmUp(http, streams, url, err);
                long before = rssMb(node);
                long t0 = System.nanoTime();
                List<StreamWatchers.Watcher> opened = streams.open(url, watchers, CONNECTS_AT_ONCE, Duration.ofMinutes(5));
                double openSeconds = (System.nanoTime() - t0) / 1e9;
                int ok = (int) opened.stream().filter(w -> w.status() == 200 && w.events() > 0).count();
                int refused = (int) opened.stream().filter(w -> w.status() == 503).count();
                Thread.sleep(5_000); // the node settles: buffers released, the collector has run
                long with = rssMb(node);
                err.printf("streams: %,d of %,d streams open in %.1f s (%,d refused); node RSS %,d MB -> %,d MB%n", ok, watchers,
                        openSeconds, refused, before, with);

                streams.target(burst);
                long[] sent = burstOn(http, item, burst);
                long lastSent = sent[1];
                double burstSeconds = (sent[1] - sent[0]) / 1e9;
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (opened.stream().anyMatch(w -> w.status() == 200 && w.sawTargetNanos() < 0) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                Latencies after = new Latencies();
                int sawFinal = 0;
                int mostEvents = 0;
                for (StreamWatchers.Watcher w : opened) {
                    if (w.sawTargetNanos() > 0) {
                        sawFinal++;
                        after.recordNanos(Math.max(0, w.sawTargetNanos() - lastSent));
                    }
                    mostEvents = Math.max(mostEvents, w.events());
                }
                err.printf("streams: %,d of %,d saw the final count; after the last vote p50 %s ms, p99 %s ms, max %s ms%n",
                        sawFinal, ok, after.percentileMillis(50), after.percentileMillis(99), after.percentileMillis(100));

                // with, without, without, with, …: a drift (the JIT still warming) weighs on both sides alike
                List<Long> rateWith = new ArrayList<>();
                List<Long> rateWithout = new ArrayList<>();
                boolean open = true;
                for (int run = 0; run < 2 * pairs; run++) {
                    boolean withStreams = run % 4 == 0 || run % 4 == 3;
                    if (withStreams && !open) {
                        streams.open(url, watchers, CONNECTS_AT_ONCE, Duration.ofMinutes(5));
                    } else if (!withStreams && open) {
                        streams.closeAll();
                        awaitStreamsClosed(err);
                    }
                    open = withStreams;
                    long votesPerSecond = rate(http, seq, rateSeconds);
                    seq += 100_000_000L;
                    (withStreams ? rateWith : rateWithout).add(votesPerSecond);
                    err.printf("streams: votes/s %s %,d idle streams: %,d%n", withStreams ? "with" : "without", watchers,
                            votesPerSecond);
                }
                return new Result(watchers, ok, refused, openSeconds, before, with, burst, burstSeconds, sawFinal,
                        after.percentileMillis(50), after.percentileMillis(99), after.percentileMillis(100), mostEvents,
                        rateWith, rateWithout);
            }
        }
    }

    /** The node's JIT meets the vote path and the stream path before anything is measured; returns the next vote's number. */
    private static long warmUp(HttpDriver http, StreamWatchers streams, String url, PrintStream err) throws Exception {
        streams.open(url.replace("watched", "warm-up"), 200, CONNECTS_AT_ONCE, Duration.ofMinutes(1));
        long seq = 0;
        for (int round = 0; round < 4; round++) {
            rate(http, seq, 10);
            seq += 100_000_000L;
        }
        streams.closeAll();
        awaitStreamsClosed(err);
        return seq;
    }

    /**
     * The server finds a closed stream when a write to it fails: the first heartbeat after the client left still
     * goes into the socket, the second fails. Wait that long, so the next run starts without them.
     */
    private static void awaitStreamsClosed(PrintStream err) throws InterruptedException {
        err.println("streams: waiting for the node to notice the closed streams (two heartbeats)");
        Thread.sleep(TimeUnit.SECONDS.toMillis(2L * EVENT_STREAM_HEARTBEAT_SECONDS + 3));
    }

    /**
     * {@code votes} up-votes on the item by as many new voters, evenly over two seconds, all accepted; returns when
     * the first and the last were sent ({@link System#nanoTime}).
     */
    private static long[] burstOn(HttpDriver http, String item, int votes) throws InterruptedException {
        CountDownLatch answered = new CountDownLatch(votes);
        AtomicInteger accepted = new AtomicInteger();
        long burstStart = System.nanoTime();
        long lastSent = burstStart;
        for (int i = 0; i < votes; i++) {
            LoadStats.sleepUntil(burstStart + TimeUnit.MILLISECONDS.toNanos(2000L * i / Math.max(1, votes - 1)));
            lastSent = System.nanoTime();
            http.send(HttpLoad.post(http, new Workload.Vote(i, "burst-voter-" + i, item, 1)), lastSent,
                    a -> {
                        if (a.status() == 200 || a.status() == 202) {
                            accepted.incrementAndGet();
                        }
                        answered.countDown();
                    });
        }
        answered.await(60, TimeUnit.SECONDS);
        if (accepted.get() != votes) {
            throw new IllegalStateException((votes - accepted.get()) + " of the burst's votes were not accepted");
        }
        return new long[] {burstStart, lastSent};
    }

    /** Votes over HTTP as fast as the node answers them, for {@code seconds}; the acknowledged votes per second. */
    private static long rate(HttpDriver http, long firstSeq, int seconds) throws InterruptedException {
        long start = System.nanoTime();
        LoadStats stats = new LoadStats(firstSeq, Long.MAX_VALUE / 4, start + TimeUnit.SECONDS.toNanos(seconds), 0, false);
        HttpLoad.run(http, Workload.UNIFORM, VOTE_CONNECTIONS, stats, null);
        return Math.round(stats.acknowledged() / ((System.nanoTime() - start) / 1e9));
    }

    private static long rssMb(ChildNode node) throws java.io.IOException {
        return ProcessMemory.kb(Long.toString(node.pid())).getOrDefault("VmRSS", -1024L) / 1024;
    }

    private static double mean(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).average().orElse(0);
    }
}
