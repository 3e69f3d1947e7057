package dev.tally.ingest.identity;

/**
 * A bearer token that was refused, with a short reason fit for a 401 detail. It never carries the token or
 * any part of it — it may end up in a response or a log line — only what was wrong with it.
 */
public final class InvalidJwtException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a token was refused; each is one line a client developer can act on. */
    public enum Reason {
        NOT_ACCEPTED("JWTs are not accepted here"),
        MALFORMED("malformed token"),
        WRONG_ALGORITHM("wrong algorithm"),
        BAD_SIGNATURE("bad signature"),
        EXPIRED("token expired"),
        NOT_YET_VALID("token not yet valid"),
        WRONG_ISSUER("wrong issuer"),
        WRONG_AUDIENCE("wrong audience");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    private final Reason reason;

    InvalidJwtException(Reason reason, String detail) {
        super(detail == null || detail.isEmpty() ? reason.text() : reason.text() + ": " + detail, null, false, false);
        this.reason = reason;
    }

    InvalidJwtException(Reason reason) {
        this(reason, null);
    }

    public Reason reason() {
        return reason;
    }
}
