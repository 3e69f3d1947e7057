package dev.tally.ingest;

/** A command was not appended: a running reader of {@code tally.vote-commands} cannot decode the schema this build writes. */
public final class UnreadableCommandException extends RuntimeException {
    public UnreadableCommandException(String reason) {
        super(reason);
    }
}
