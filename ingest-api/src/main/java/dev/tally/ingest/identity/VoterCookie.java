package dev.tally.ingest.identity;

import dev.tally.common.KeyedMac;
import dev.tally.common.Secrets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The anonymous voter cookie {@code tally_vid}: a durable pseudonymous identity without an account. Its value
 * is {@code <voterId>.<expiresEpochSeconds>.1.<mac>}, the MAC being base64url(HMAC-SHA256) over
 * {@code <voterId>.<expires>.1.<hostname>} under the key derived for {@code cookie} alone, so a leak of any
 * other derived key cannot forge one, and a cookie minted for one host is worthless on another.
 *
 * <p>Verification checks the shape before it spends a hash and compares MACs in constant time. A bad or
 * expired cookie is simply no cookie: the caller issues a fresh one, and the old id is never recovered. The
 * voter id itself is never stored — only {@code IdentityHasher.voter("anon:" + id)}.
 *
 * <p>{@code HttpOnly} keeps it from scripts, {@code SameSite=Lax} from cross-site writes, {@code Path=/v1}
 * off page and asset requests (it costs nothing on the cached read path), {@code Secure} outside the dev
 * profile (which serves plain HTTP on 127.0.0.1).
 */
public final class VoterCookie {
    public static final String NAME = "tally_vid";
    public static final Duration LIFETIME = Duration.ofDays(365);
    static final String VERSION = "1";
    private static final int ID_BYTES = 16;
    /** The longest value a cookie has: a 30-character id, a 12-digit expiry, the version and the MAC. */
    static final int MAX_VALUE_CHARS = 30 + 1 + 12 + 1 + 1 + 1 + 43;
    private static final Pattern VOTER_ID = Pattern.compile("[A-Za-z0-9_-]{20,30}");
    private static final Pattern EXPIRY = Pattern.compile("[0-9]{1,12}");
    /** base64url of a 32-byte HMAC-SHA256, no padding. */
    private static final Pattern MAC = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

    private final KeyedMac key;
    private final boolean secure;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param devProfile true only in the dev profile, which serves plain HTTP: the cookie then lacks
     *                   {@code Secure}, otherwise a browser would never send it back
     */
    public VoterCookie(Secrets secrets, boolean devProfile) {
        this.key = new KeyedMac(secrets.derive("cookie"));
        this.secure = !devProfile;
    }

    /**
     * A fresh cookie.
     *
     * @param voterId         the new random id (22 base64url characters); hash it before it goes anywhere
     * @param value           the cookie value
     * @param expires         when it expires
     * @param setCookieHeader the whole {@code Set-Cookie} header value
     */
    public record Issued(String voterId, String value, Instant expires, String setCookieHeader) {
        /** The value is a credential: never printed. */
        @Override
        public String toString() {
            return "VoterCookie.Issued[expires=" + expires + "]";
        }
    }

    /** Mints a new voter id and its cookie, bound to {@code hostname} (the request's host, without port). */
    public Issued issue(String hostname, Instant now) {
        byte[] idBytes = new byte[ID_BYTES];
        random.nextBytes(idBytes);
        String voterId = B64URL.encodeToString(idBytes);
        long expires = now.getEpochSecond() + LIFETIME.toSeconds();
        String payload = voterId + "." + expires + "." + VERSION;
        String value = payload + "." + mac(payload, hostname);
        String header = NAME + "=" + value + "; Max-Age=" + LIFETIME.toSeconds()
                + "; Path=/v1; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "");
        return new Issued(voterId, value, Instant.ofEpochSecond(expires), header);
    }

    /**
     * The voter id of a cookie value that is well formed, unexpired and signed for {@code hostname}; empty for
     * anything else, including null.
     */
    public Optional<String> verify(String value, String hostname, Instant now) {
        return verified(value, hostname, now).map(Verified::voterId);
    }

    /** A valid cookie's voter id and when it was issued (its expiry less {@link #LIFETIME}). */
    public record Verified(String voterId, Instant issuedAt) {}

    /** Like {@link #verify}, also telling when the cookie was issued: a young voter weighs less. */
    public Optional<Verified> verified(String value, String hostname, Instant now) {
        if (value == null || value.length() > MAX_VALUE_CHARS) {
            return Optional.empty();
        }
        String[] parts = value.split("\\.", -1);
        if (parts.length != 4
                || !VERSION.equals(parts[2])
                || !EXPIRY.matcher(parts[1]).matches()
                || !VOTER_ID.matcher(parts[0]).matches()
                || !MAC.matcher(parts[3]).matches()) {
            return Optional.empty();
        }
        if (Long.parseLong(parts[1]) <= now.getEpochSecond()) {
            return Optional.empty();
        }
        String expected = mac(parts[0] + "." + parts[1] + "." + parts[2], hostname);
        if (!Secrets.constantTimeEquals(parts[3], expected)) {
            return Optional.empty();
        }
        return Optional.of(new Verified(parts[0], Instant.ofEpochSecond(Long.parseLong(parts[1])).minus(LIFETIME)));
    }

    /** Host names are case-insensitive: {@code Example.com} and {@code example.com} are one binding. */
    private String mac(String payload, String hostname) {
        Objects.requireNonNull(hostname, "hostname");
        return B64URL.encodeToString(key.of(payload + "." + hostname.toLowerCase(Locale.ROOT)));
    }

    @Override
    public String toString() {
        return "VoterCookie[secure=" + secure + "]";
    }
}
