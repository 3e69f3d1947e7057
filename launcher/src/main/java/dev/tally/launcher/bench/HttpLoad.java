package dev.tally.launcher.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP path: {@code POST /v1/votes} as the voter named in {@code X-Tally-User} (the dev profile trusts
 * it), over the {@link HttpDriver}'s connections. Paced ({@code --rate}), it is an open loop: each vote is
 * sent when it is due whatever the answers before it did, and its latency counts from then. Unpaced, at
 * most {@code outstanding} votes are unanswered at once. A vote is acknowledged on 200 (applied, counts
 * included) or 202 (durably in Kafka, outcome not ready in time); a 200's {@code position}
 * ({@code partition:offset} of the command) feeds the vote→visible latency.
 */
public final class HttpLoad {
    private static final int RESEND_WINDOW = 256;
    private HttpLoad() {}

    public static void run(HttpDriver http, Workload workload, int outstanding, LoadStats stats, ViewFollower follower)
            throws InterruptedException {
        SplittableRandom random = new SplittableRandom(0x4177L);
        Semaphore window = new Semaphore(stats.paced() ? Integer.MAX_VALUE : outstanding);
        AtomicLong unanswered = new AtomicLong(); // a Phaser would cap this at 65,535, and a stalled server passes that
        for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) {
            window.acquire();
            long due = stats.dueNanos(seq);
            Workload.Vote vote = workload.vote(seq, random);
            long s = seq;
            unanswered.incrementAndGet();
            http.send(post(http, vote), due, answer -> {
                try {
                    answered(answer, s, due, vote, stats, follower);
                } finally {
                    window.release();
                    unanswered.decrementAndGet();
                }
            });
        }
        while (unanswered.get() > 0) { // every request ends: answered, failed, or timed out by the driver
            Thread.sleep(5);
        }
    }

    /**
     * Sends each vote again, {@value #RESEND_WINDOW} at a time with {@code Prefer: respond-async} (202 once
     * it is durable: the audit waits for the processing anyway), until the server acknowledges it, in
     * rounds a second apart; returns how many were sent. Set mode: a vote that had been applied is
     * unchanged by its repeat.
     */
    public static long sendUntilAcknowledged(HttpDriver http, List<Workload.Vote> refused, PrintStream err)
            throws InterruptedException {
        List<Workload.Vote> pending = refused;
        for (int round = 1; !pending.isEmpty(); round++) {
            if (round > 20) {
                throw new IllegalStateException(pending.size() + " votes still not acknowledged after 20 rounds");
            }
            List<Workload.Vote> again = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch answered = new CountDownLatch(pending.size());
            AtomicInteger inFlight = new AtomicInteger();
            for (Workload.Vote vote : pending) {
                while (inFlight.get() >= RESEND_WINDOW) {
                    Thread.sleep(1);
                }
                inFlight.incrementAndGet();
                http.send(post(http, vote).headers(h -> h.put("Prefer", "respond-async")), System.nanoTime(), a -> {
                    if (a.status() != 200 && a.status() != 202) {
                        again.add(vote);
                    }
                    inFlight.decrementAndGet();
                    answered.countDown();
                });
            }
            answered.await(5, TimeUnit.MINUTES);
            err.printf("load: sent %,d unacknowledged votes again (round %d), %,d still refused%n", pending.size(), round, again.size());
            pending = List.copyOf(again);
            if (!pending.isEmpty()) {
                Thread.sleep(1000);
            }
        }
        return refused.size();
    }

    /** The vote as {@code POST /v1/votes} in set mode, as its own voter ({@code X-Tally-User}, trusted in the dev profile). */
    static org.eclipse.jetty.client.Request post(HttpDriver http, Workload.Vote vote) {
        String body = "{\"item_type\":\"" + Workload.ITEM_TYPE + "\",\"item_id\":\"" + vote.itemId()
                + "\",\"vote_value\":" + vote.value() + ",\"mode\":\"set\"}";
        return http.post("/v1/votes", body).headers(h -> h.put("X-Tally-User", vote.voter()));
    }

    /** @param dueNanos when the vote was due (paced) or sent: its vote→visible latency counts from there, as its answer's does */
    private static void answered(HttpDriver.Answer answer, long seq, long dueNanos, Workload.Vote vote, LoadStats stats,
                                 ViewFollower follower) {
        if (answer.status() == 200 || answer.status() == 202) {
            stats.acked();
            stats.answers().recordNanos(answer.latencyNanos());
            long[] position = answer.status() == 200 && stats.sampled(seq) ? position(answer.body()) : null;
            if (position != null) {
                follower.expect(vote.itemKey(), (int) position[0], position[1], dueNanos);
            }
        } else if (answer.status() == 0) {
            stats.refused(vote, answer.body());
        } else {
            stats.refused(vote, "HTTP " + answer.status() + ": " + answer.body());
        }
    }

    /** {@code "position":"P:O"} of a 200 answer as {P, O}, or null. */
    static long[] position(String body) {
        int at = body.indexOf("\"position\":\"");
        if (at < 0) {
            return null;
        }
        int start = at + "\"position\":\"".length();
        int end = body.indexOf('"', start);
        int colon = body.indexOf(':', start);
        if (end < 0 || colon < 0 || colon > end) {
            return null;
        }
        try {
            return new long[] {Long.parseLong(body.substring(start, colon)), Long.parseLong(body.substring(colon + 1, end))};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
