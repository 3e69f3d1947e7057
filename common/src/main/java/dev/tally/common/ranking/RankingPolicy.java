package dev.tally.common.ranking;

import java.util.Locale;

/**
 * How votes weigh in rankings: a named rule with a version, so that a list built under one rule is never mistaken
 * for one built under another. The counts of an item are the same whatever the policy; only its rankings differ.
 * Votes held in quarantine are in no ranking under any policy: they have no event until they are released.
 *
 * <table>
 *   <caption>What one vote weighs</caption>
 *   <tr><th>policy</th><th>a signed-in voter's vote</th><th>an anonymous (cookie) voter's vote</th></tr>
 *   <tr><td>{@code all}</td><td>1</td><td>1</td></tr>
 *   <tr><td>{@code trusted}</td><td>its recorded weight (0.1 from an account or cookie younger than a day, else
 *       1)</td><td>its recorded weight</td></tr>
 *   <tr><td>{@code signed-in}</td><td>its recorded weight</td><td>0</td></tr>
 * </table>
 * A vote whose event does not say whether its voter was signed in (a moderator's tool, or one cast before this was
 * recorded) counts as signed in.
 */
public enum RankingPolicy {
    ALL(1), TRUSTED(1), SIGNED_IN(1);

    private final int version;

    RankingPolicy(int version) {
        this.version = version;
    }

    /** Changes whenever this policy's rule does: indexes built under another version are rebuilt, never reused. */
    public int version() {
        return version;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** What a vote weighs under this policy: {@code recorded} its weight in the counts, {@code anonymous} as its event says. */
    public double weight(double recorded, Boolean anonymous) {
        return switch (this) {
            case ALL -> 1.0;
            case TRUSTED -> recorded;
            case SIGNED_IN -> Boolean.TRUE.equals(anonymous) ? 0.0 : recorded;
        };
    }

    public static RankingPolicy parse(String name) {
        return WireNames.parse(values(), RankingPolicy::wireName, "policy", name);
    }
}
