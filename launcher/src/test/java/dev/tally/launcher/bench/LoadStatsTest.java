package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LoadStatsTest {
    @Test
    void pacedVotesLeaveInOneBurstPerTickAndNeverBeforeTheyAreDue() {
        LoadStats first = new LoadStats(0, 3, Long.MAX_VALUE / 2 + System.nanoTime(), 20_000, false);
        while (first.claim() >= 0) { // the classes it needs loaded, so that the run below starts on time
        }
        // 20,000 votes a second: one due every 50 µs, twenty in each 1 ms tick, 2,000 over a hundred ticks
        int votes = 2_000;
        long[] claimedAt = new long[votes];
        long[] seqs = new long[votes];
        LoadStats stats = new LoadStats(500, votes, Long.MAX_VALUE / 2 + System.nanoTime(), 20_000, false);
        int claimed = 0;
        for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) { // nothing else in the loop: its times are the claims'
            claimedAt[claimed] = System.nanoTime();
            seqs[claimed++] = seq;
        }
        assertThat(claimed).isEqualTo(votes);
        int bursts = 1;
        for (int i = 0; i < votes; i++) {
            assertThat(claimedAt[i]).as("vote %d", seqs[i]).isGreaterThanOrEqualTo(stats.dueNanos(seqs[i]));
            if (i > 0 && claimedAt[i] - claimedAt[i - 1] > 30_000) { // the sender slept in between
                bursts++;
            }
        }
        // one wake-up per tick (a hundred); waking for each vote, as before, made one per vote or two (the kernel
        // sleeps some 120 µs for a 50 µs park here): 700-1,000
        assertThat(bursts).isLessThanOrEqualTo(200);
    }

    @Test
    void anUnpacedVoteIsDueWhenItIsClaimed() {
        LoadStats stats = new LoadStats(0, 3, Long.MAX_VALUE / 2 + System.nanoTime(), 0, false);
        long before = System.nanoTime();
        long seq = stats.claim();
        assertThat(seq).isZero();
        assertThat(stats.dueNanos(seq)).isGreaterThanOrEqualTo(before);
    }
}
