package dev.tally.ingest;

import dev.tally.common.IdentityHasher;
import dev.tally.common.Secrets;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * Who is calling. Voters are only ever handled as keyed hashes from here on; the admin token is compared
 * in constant time.
 */
final class Identities {
    private final IdentityHasher hasher;
    private final boolean trustUserHeader;
    private final String adminToken;

    Identities(IdentityHasher hasher, boolean trustUserHeader, String adminToken) {
        this.hasher = hasher;
        this.trustUserHeader = trustUserHeader;
        this.adminToken = adminToken;
    }

    /** The hashed voter, from the trusted gateway header when it is honoured; empty when anonymous. */
    Optional<String> voter(Context ctx) {
        if (trustUserHeader) {
            String user = ctx.header("X-Tally-User");
            if (user != null) {
                if (!user.matches("[\\x21-\\x7E]{1,128}")) {
                    throw new ApiProblem(401, "bad-credentials", "Bad credentials",
                            "X-Tally-User must be 1 to 128 visible ASCII characters");
                }
                return Optional.of(hasher.voter("user:" + user));
            }
        }
        return Optional.empty();
    }

    String requireVoter(Context ctx) {
        return voter(ctx).orElseThrow(() -> new ApiProblem(401, "unauthenticated", "Unauthenticated",
                "no voter identity: send X-Tally-User (trusted gateway)"));
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
