package dev.tally.ingest;

import dev.tally.common.Env;
import dev.tally.common.IdentityHasher;
import dev.tally.common.Profile;
import dev.tally.common.Secrets;
import dev.tally.ingest.identity.Account;
import dev.tally.ingest.identity.ClientAddress;
import dev.tally.ingest.identity.InvalidJwtException;
import dev.tally.ingest.identity.JwtConfig;
import dev.tally.ingest.identity.JwtVerifier;
import dev.tally.ingest.identity.VoterCookie;
import io.javalin.http.Context;
import java.net.InetAddress;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who is calling, in this order: a bearer JWT (an invalid one is 401, never a fallback), the trusted
 * gateway header {@code X-Tally-User} when it is honoured, the anonymous {@code tally_vid} cookie — and
 * a POST with none of them is issued a new cookie. Voters and networks leave this class only as keyed
 * hashes; the admin token is compared in constant time.
 */
public final class Identities {
    /** A voter as the rest of Tally sees them. */
    /** @param anonymous known only by a signed cookie, not signed in */
    public record Voter(String hash, Optional<Instant> accountCreated, boolean anonymous) {}

    /**
     * The caller's address (kept in memory for the request only) and its network's keyed hash; null for a
     * loopback caller — the operator's own machine is no client network, so per-network rules skip it.
     */
    public record Client(InetAddress address, String network) {
        @Override
        public String toString() {
            return "Client[network=" + network + "]"; // never the address
        }
    }

    private static final Pattern GATEWAY_USER = Pattern.compile("[\\x21-\\x7E]{1,128}");

    private final IdentityHasher hasher;
    private final boolean trustUserHeader;
    private final String adminToken;
    private final JwtVerifier jwt;
    private final VoterCookie cookies;
    private final ClientAddress clientAddress;

    public Identities(IdentityHasher hasher, boolean trustUserHeader, String adminToken, JwtVerifier jwt,
                      VoterCookie cookies, ClientAddress clientAddress) {
        this.hasher = hasher;
        this.trustUserHeader = trustUserHeader;
        this.adminToken = adminToken;
        this.jwt = jwt;
        this.cookies = cookies;
        this.clientAddress = clientAddress;
    }

    /** Reads {@code TALLY_JWT_*}, {@code TALLY_JWKS_FILE} and {@code TALLY_TRUSTED_PROXIES}. */
    public static Identities from(Env env, Profile profile, Secrets secrets, IngestConfig config, String adminToken) {
        return new Identities(new IdentityHasher(secrets), config.trustUserHeader(), adminToken,
                new JwtVerifier(JwtConfig.from(env)), new VoterCookie(secrets, profile.isDev()),
                ClientAddress.from(env, profile.isDev()));
    }

    /** The caller as a voter, if they say who they are; reads never issue a cookie. */
    Optional<Voter> voter(Context ctx) {
        return voter(ctx, false);
    }

    /** The voter of a write: a caller with no identity at all becomes a new anonymous voter. */
    Voter requireVoter(Context ctx) {
        return voter(ctx, true).orElseThrow(); // issueIfMissing always yields a voter
    }

    private Optional<Voter> voter(Context ctx, boolean issueIfMissing) {
        Instant now = Instant.now();
        Optional<String> bearer = JwtVerifier.bearerToken(ctx.header("Authorization"));
        if (bearer.isPresent()) {
            try {
                Account account = jwt.verify(bearer.get(), now);
                return Optional.of(new Voter(hasher.voter("user:" + account.subject()), account.accountCreated(), false));
            } catch (InvalidJwtException e) {
                throw new ApiProblem(401, "bad-credentials", "Bad credentials", e.getMessage())
                        .withHeader("WWW-Authenticate", "Bearer error=\"invalid_token\"");
            }
        }
        if (trustUserHeader) {
            String user = ctx.header("X-Tally-User");
            if (user != null) {
                if (!GATEWAY_USER.matcher(user).matches()) {
                    throw new ApiProblem(401, "bad-credentials", "Bad credentials",
                            "X-Tally-User must be 1 to 128 visible ASCII characters");
                }
                return Optional.of(new Voter(hasher.voter("user:" + user), Optional.empty(), false));
            }
        }
        String host = ctx.req().getServerName();
        Optional<VoterCookie.Verified> anonymous = cookies.verified(ctx.cookie(VoterCookie.NAME), host, now);
        if (anonymous.isEmpty() && issueIfMissing) {
            VoterCookie.Issued issued = cookies.issue(host, now);
            ctx.res().addHeader("Set-Cookie", issued.setCookieHeader());
            anonymous = Optional.of(new VoterCookie.Verified(issued.voterId(), now));
        }
        // an anonymous voter is as old as their cookie: a fresh one weighs like a new account
        return anonymous.map(v -> new Voter(hasher.voter("anon:" + v.voterId()), Optional.of(v.issuedAt()), true));
    }

    /**
     * The keyed hash of the caller's network (/24 or /56, and today's UTC date): from the socket peer, or
     * the rightmost untrusted {@code X-Forwarded-For} entry behind a trusted proxy. No usable address
     * fails closed with 403 — a default bucket would be a free pass around per-network limits.
     */
    Client client(Context ctx) {
        InetAddress address = clientAddress.resolve(ctx.req().getRemoteAddr(),
                        Collections.list(ctx.req().getHeaders("X-Forwarded-For")))
                .orElseThrow(() -> new ApiProblem(403, "client-address-required", "Client address required",
                        "the client address could not be determined from the connection or a trusted proxy"));
        if (address.isLoopbackAddress()) {
            return new Client(address, null);
        }
        return new Client(address, hasher.network(address, LocalDate.now(ZoneOffset.UTC)));
    }

    void requireAdmin(Context ctx) {
        String auth = ctx.header("Authorization");
        String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7).strip() : null;
        if (!Secrets.constantTimeEquals(token, adminToken)) {
            throw new ApiProblem(401, "admin-token-required", "Admin token required",
                    "send Authorization: Bearer $TALLY_ADMIN_TOKEN").withHeader("WWW-Authenticate", "Bearer");
        }
    }
}
