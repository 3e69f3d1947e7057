package dev.tally.processor;

import dev.tally.common.Rejection;
import dev.tally.schema.VoterQuota;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The per-voter sliding window and daily quota (by default 60 votes per 60 s, 1,000 a day).
 * Exact across any number of API instances because commands are keyed by voter: one task sees all of a
 * voter's commands, in order. Time is the command's {@code received_at}, so a replay decides the same.
 * Only changes count: pressing the same button again ({@code unchanged}) burns no quota.
 *
 * <p>Every voter who holds a voter-item record has a record here: a change applied or held is charged (and so
 * recorded) first, and a change exempt from the limits (a moderator's) records the voter without charging them
 * ({@link Voter#enrol}). So a voter with no record here holds no voter-item, and their first vote needs no lookup of
 * its voter-item record, which would miss ({@link #coversEveryVoterItem}). A store that held voter-items before this
 * was so (a node's data from an older version) never says it does, and every vote there reads both records.
 */
final class VoterQuotas {
    private static final long DAY_MS = 86_400_000L;
    /**
     * The key under which a store says it has covered every voter with a voter-item record since it began (a voter
     * record with nothing charged, so a voter whose id this were would read it as no votes at all).
     */
    static final String COVERAGE_KEY = "\u0000covers-every-voter-item";
    private static final VoterQuota NOTHING_CHARGED = new VoterQuota(List.of(), 0, 0, 0L);

    /** A refusal and the seconds until the voter may vote again. */
    record Refusal(Rejection reason, long retryAfterSeconds, String detail) {}

    private final VoteProcessorConfig.VoterLimits limits;
    private final KeyValueStore<String, VoterQuota> store;
    private boolean covers;

    VoterQuotas(VoteProcessorConfig.VoterLimits limits, KeyValueStore<String, VoterQuota> store) {
        this.limits = limits;
        this.store = store;
    }

    /**
     * Whether a voter with no record here holds no voter-item. Decided once per task, as it first processes: true
     * when the store says so, or when the task's voter-items are empty (then it says so from now on).
     */
    boolean coversEveryVoterItem() {
        return covers;
    }

    /** @param noVoterItems whether the task holds no voter-item record yet */
    void checkCoverage(boolean noVoterItems) {
        covers = store.get(COVERAGE_KEY) != null;
        if (!covers && noVoterItems) {
            store.put(COVERAGE_KEY, NOTHING_CHARGED);
            covers = true;
        }
    }

    /** One voter's limits, their record read once for all the questions a vote asks. */
    Voter of(String voter) {
        return new Voter(voter, store.get(voter));
    }

    final class Voter {
        private final String voter;
        private VoterQuota q;

        private Voter(String voter, VoterQuota q) {
            this.voter = voter;
            this.q = q;
        }

        /** Whether one more counted vote at {@code now} (epoch ms) is within the voter's limits. */
        Optional<Refusal> check(long now) {
            if (q == null) {
                return Optional.empty();
            }
            long windowMs = limits.window().toMillis();
            List<Long> recent = inWindow(q, now, windowMs);
            if (recent.size() >= limits.perWindow()) {
                long retry = ceilSeconds(recent.get(recent.size() - limits.perWindow()) + windowMs - now);
                return Optional.of(new Refusal(Rejection.RATE_LIMITED, retry, "at most " + limits.perWindow()
                        + " votes per " + limits.window().toSeconds() + " s; try again in " + retry + " s"));
            }
            int today = (int) Math.floorDiv(now, DAY_MS);
            if (q.getDay() == today && q.getDayCount() >= limits.perDay()) {
                long retry = ceilSeconds((today + 1L) * DAY_MS - now);
                return Optional.of(new Refusal(Rejection.QUOTA_EXCEEDED, retry, "at most " + limits.perDay()
                        + " votes per day (UTC); the quota resets in " + retry + " s"));
            }
            return Optional.empty();
        }

        /** Whether the voter has no record: nothing charged or enrolled, ever. */
        boolean isNew() {
            return q == null;
        }

        /** Records the voter without charging anything (a change exempt from the limits), if they have no record. */
        void enrol() {
            if (q == null) {
                q = NOTHING_CHARGED;
                store.put(voter, q);
            }
        }

        /** Counts one vote at {@code now}. */
        void record(long now) {
            int today = (int) Math.floorDiv(now, DAY_MS);
            List<Long> recent = q == null ? new ArrayList<>() : inWindow(q, now, limits.window().toMillis());
            recent.add(now);
            int dayCount = q != null && q.getDay() == today ? q.getDayCount() + 1 : 1;
            long first = q != null && q.getFirstVoteAt() > 0 ? q.getFirstVoteAt() : now;
            q = new VoterQuota(recent, today, dayCount, first);
            store.put(voter, q);
        }

        /** Whether the voter had a counted vote before {@code instant} (epoch ms): a voter with history. */
        boolean votedBefore(long instant) {
            return q != null && q.getFirstVoteAt() > 0 && q.getFirstVoteAt() < instant;
        }
    }

    private static List<Long> inWindow(VoterQuota q, long now, long windowMs) {
        List<Long> recent = new ArrayList<>();
        for (Long t : q.getRecent()) {
            if (t > now - windowMs) {
                recent.add(t);
            }
        }
        return recent;
    }

    private static long ceilSeconds(long millis) {
        return Math.max(1, (millis + 999) / 1000);
    }
}
