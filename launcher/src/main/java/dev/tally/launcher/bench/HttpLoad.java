package dev.tally.launcher.bench;

import java.util.SplittableRandom;
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
    private HttpLoad() {}

    public static void run(HttpDriver http, Workload workload, int outstanding, LoadStats stats, ViewFollower follower)
            throws InterruptedException {
        SplittableRandom random = new SplittableRandom(0x4177L);
        Semaphore window = new Semaphore(stats.paced() ? Integer.MAX_VALUE : outstanding);
        AtomicLong unanswered = new AtomicLong(); // a Phaser would cap this at 65,535, and a stalled server passes that
        for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) {
            window.acquire();
            long due = stats.paced() ? stats.dueNanos(seq) : System.nanoTime();
            Workload.Vote vote = workload.vote(seq, random);
            String body = "{\"item_type\":\"" + Workload.ITEM_TYPE + "\",\"item_id\":\"" + vote.itemId()
                    + "\",\"vote_value\":" + vote.value() + ",\"mode\":\"set\"}";
            long s = seq;
            unanswered.incrementAndGet();
            http.send(http.post("/v1/votes", body).headers(h -> h.put("X-Tally-User", vote.voter())), due, answer -> {
                try {
                    answered(answer, s, vote, stats, follower);
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

    private static void answered(HttpDriver.Answer answer, long seq, Workload.Vote vote, LoadStats stats, ViewFollower follower) {
        if (answer.status() == 200 || answer.status() == 202) {
            stats.acked();
            stats.answers().recordNanos(answer.latencyNanos());
            long[] position = answer.status() == 200 && stats.sampled(seq) ? position(answer.body()) : null;
            if (position != null) {
                follower.expect(vote.itemKey(), (int) position[0], position[1], System.nanoTime());
            }
        } else if (answer.status() == 0) {
            stats.failed(answer.body());
        } else {
            stats.failed("HTTP " + answer.status() + ": " + answer.body());
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
