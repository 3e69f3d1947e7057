package dev.tally.projector.reconcile;

/** Told how far the read of the event log has come, after every poll: a progress bar, or nothing. */
@FunctionalInterface
public interface Progress {
    Progress NONE = (read, total) -> {};

    /**
     * @param read  offsets of {@code tally.vote-events} consumed so far (transaction markers count, so
     *              this reaches {@code total} exactly when the read is done)
     * @param total offsets between the start of the log and the end snapshot
     */
    void update(long read, long total);
}
