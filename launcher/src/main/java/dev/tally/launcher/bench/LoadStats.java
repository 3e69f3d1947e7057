package dev.tally.launcher.bench;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/** Counters the load threads share: the next sequence number, acknowledged and failed votes. */
public final class LoadStats {
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final long firstSeq;
    private final long votes;
    private final boolean sampling;
    private final long deadlineNanos;
    /**
     * A paced sender wakes at most once per tick and sends every vote due by then, each still timed from when it was
     * due (so the wait to the tick, under a millisecond, is inside its latency). Waking for each vote would take CPU
     * from the node under test.
     */
    static final long TICK_NANOS = 1_000_000;
    private final long startNanos = System.nanoTime();
    private final double nanosPerVote;
    private final Latencies answers = new Latencies();
    private volatile String firstError;
    private volatile Throwable crash;
    private volatile boolean stopped;
    private final java.util.Queue<Workload.Vote> refused = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * @param deadlineNanos {@link System#nanoTime()} after which no new vote is sent
     * @param rate          votes per second to pace the load at, or 0 for as fast as it goes
     */
    public LoadStats(long votes, long deadlineNanos, long rate) {
        this(0, votes, deadlineNanos, rate, true);
    }

    /**
     * @param firstSeq the first vote's sequence number (votes of an earlier phase keep theirs: every voter distinct)
     * @param sampling whether votes are sampled for the vote→visible latency
     */
    public LoadStats(long firstSeq, long votes, long deadlineNanos, long rate, boolean sampling) {
        this.firstSeq = firstSeq;
        this.sampling = sampling;
        this.votes = votes;
        this.deadlineNanos = deadlineNanos;
        this.nanosPerVote = rate > 0 ? 1e9 / rate : 0;
    }

    /** The next vote's sequence number (waiting for its turn when paced), or -1 when all are sent or the time is up. */
    long claim() {
        if (stopped || System.nanoTime() - deadlineNanos > 0) {
            return -1;
        }
        long n = next.getAndIncrement();
        if (n >= votes) {
            return -1;
        }
        if (paced()) {
            long due = dueNanos(firstSeq + n);
            if (due - System.nanoTime() > 0) { // wait for the tick after it: the votes due within one tick leave together
                sleepUntil(startNanos + Math.floorDiv(due - startNanos + TICK_NANOS - 1, TICK_NANOS) * TICK_NANOS);
            }
        }
        return firstSeq + n;
    }

    /** Returns at {@link System#nanoTime()} {@code deadline} or later, never before: {@code parkNanos} may return early. */
    static void sleepUntil(long deadline) {
        for (long wait = deadline - System.nanoTime(); wait > 0; wait = deadline - System.nanoTime()) {
            java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
    }

    /** The counters and answer latencies of several runs one after another, as one. */
    public static LoadStats total(java.util.List<LoadStats> parts) {
        LoadStats total = new LoadStats(parts.isEmpty() ? 0 : parts.get(0).firstSeq,
                parts.stream().mapToLong(LoadStats::target).sum(), 0, 0, true);
        for (LoadStats part : parts) {
            total.acked.addAndGet(part.acknowledged());
            total.failed.addAndGet(part.failed());
            total.answers.add(part.answers);
            if (total.firstError == null) {
                total.firstError = part.firstError;
            }
            if (total.crash == null) {
                total.crash = part.crash;
            }
        }
        return total;
    }

    /**
     * When vote {@code seq} (as {@link #claim} returned it) was due: its latency counts from here. Unpaced, no vote
     * is due before it is claimed, so it is now.
     */
    long dueNanos(long seq) {
        return paced() ? startNanos + (long) ((seq - firstSeq) * nanosPerVote) : System.nanoTime();
    }

    /** Whether the load is paced (open loop) rather than sent as fast as answers come. */
    boolean paced() {
        return nanosPerVote > 0;
    }

    /** Each answered vote's latency as its client saw it, from when it was due (the HTTP path). */
    public Latencies answers() {
        return answers;
    }

    void acked() {
        acked.incrementAndGet();
    }

    /** No vote is sent after this (those already sent are still answered). */
    public void stop() {
        stopped = true;
    }

    /** A vote the server did not acknowledge: failed, and kept so it can be sent again. */
    void refused(Workload.Vote vote, String error) {
        refused.add(vote);
        failed(error);
    }

    /** The votes not acknowledged so far (HTTP path), in no particular order. */
    public java.util.List<Workload.Vote> refusedVotes() {
        return java.util.List.copyOf(refused);
    }

    void failed(String error) {
        failed.incrementAndGet();
        if (firstError == null) {
            firstError = error;
        }
    }

    /** A load thread died: the run is not a measurement. */
    void crashed(Throwable t) {
        if (crash == null) {
            crash = t;
        }
    }

    public Throwable crash() {
        return crash;
    }

    public long acknowledged() {
        return acked.get();
    }

    public long failed() {
        return failed.get();
    }

    public long target() {
        return votes;
    }

    public String firstError() {
        return firstError;
    }

    /** Whether a vote sampled for the vote→visible latency: about 1 in 100, none when not {@code sampling}. */
    boolean sampled(long seq) {
        return sampling && seq % 100 == 0;
    }

    /**
     * A live progress line on {@code err} ({@code <label> 12,345/100,000 votes 4,321/s}), redrawn twice a
     * second until the returned thread is interrupted, then drawn once more with the final numbers.
     */
    public Thread progressLine(PrintStream err, String label, long startNanos) {
        Runnable draw = () -> {
            double elapsed = (System.nanoTime() - startNanos) / 1e9;
            err.printf("\r%s %,d/%,d votes %,d/s   ", label, acknowledged(), target(),
                    Math.round(acknowledged() / Math.max(elapsed, 1e-3)));
            err.flush();
        };
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                draw.run();
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    break;
                }
            }
            draw.run();
        }, "bench-progress");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
