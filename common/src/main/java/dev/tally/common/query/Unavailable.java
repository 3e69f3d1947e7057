package dev.tally.common.query;

/** A view cannot answer right now (rebalancing, starting, owner unreachable); the caller should retry. */
public final class Unavailable extends Exception {
    public Unavailable(String message, Throwable cause) {
        super(message, cause);
    }

    public Unavailable(String message) {
        super(message);
    }
}
