package dev.tally.ingest.challenge;

import java.net.InetAddress;
import java.util.Objects;

/**
 * Decides whether a vote carries proof that a browser, not a script, pressed the button.
 * A challenge token is a client claim, not a fact, so it is checked server-side before the vote is appended.
 *
 * <p>Implementations fail closed: anything they cannot positively confirm - an unreachable verifier, an odd
 * answer, a missing configuration - is a failed {@link Verdict}, never an exception and never a pass. They are
 * safe to share between threads.
 */
public interface ChallengeVerifier {

    /**
     * @param token         the challenge token the client sent; may be {@code null} or empty (then it fails)
     * @param clientAddress the client's address as established by the trusted proxies, or {@code null} if unknown;
     *                      forwarded so the challenge provider can cross-check the network the token was issued to
     * @return the verdict; blocking for at most a few seconds
     */
    Verdict verify(String token, InetAddress clientAddress);

    /**
     * The outcome of one verification.
     *
     * @param passed whether the vote may proceed
     * @param reason short and safe to log or show to operators; never contains the token or any secret
     */
    record Verdict(boolean passed, String reason) {
        public Verdict {
            Objects.requireNonNull(reason, "reason");
        }

        public static Verdict pass(String reason) {
            return new Verdict(true, reason);
        }

        public static Verdict fail(String reason) {
            return new Verdict(false, reason);
        }
    }
}
