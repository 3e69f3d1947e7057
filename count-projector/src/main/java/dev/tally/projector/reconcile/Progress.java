package dev.tally.projector.reconcile;

/** Told how far the read of the event log has come, after every poll: a progress bar, or nothing. */
@FunctionalInterface
public interface Progress {
    Progress NONE = (events, read, total) -> {};

    /**
     * @param events records of {@code tally.vote-events} read so far: the events
     * @param read   offsets consumed so far, transaction markers included, so this reaches {@code total}
     *               exactly when the read is done (the measure of how far it has come, not a count)
     * @param total  offsets between the start of the log and the end snapshot
     */
    void update(long events, long read, long total);
}
