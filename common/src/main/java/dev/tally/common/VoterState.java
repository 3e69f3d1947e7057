package dev.tally.common;

/** What one voter holds on one item: a vote of -1, 0 or 1 and at most one reaction code. */
public record VoterState(int vote, String reaction) {
    public static final VoterState NONE = new VoterState(0, null);

    public VoterState {
        if (vote < -1 || vote > 1) {
            throw new IllegalArgumentException("vote must be -1, 0 or 1, was " + vote);
        }
    }
}
