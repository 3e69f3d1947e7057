package dev.tally.ingest;

import dev.tally.schemas.ItemKey;
import dev.tally.schemas.FlagKey;
import dev.tally.common.KeyedView;
import dev.tally.ingest.challenge.ChallengeVerifier;
import dev.tally.schema.FraudFlag;
import io.javalin.http.Context;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The fraud-detector's verdicts as the API applies them before appending a vote (they reach it through
 * the compacted {@code tally.fraud-flags}, within the detector's propagation lag): a network over its
 * daily quota, or over its daily quota on one item, gets 429 until UTC midnight; a network flagged for
 * clustering must pass a challenge ({@code X-Tally-Challenge}: a Turnstile token, verified server-side)
 * or gets 403 {@code challenge-required}.
 */
final class FraudGate {
    static final String CHALLENGE_HEADER = "X-Tally-Challenge";

    private final KeyedView<FraudFlag> flags;
    private final ChallengeVerifier challenges;

    FraudGate(KeyedView<FraudFlag> flags, ChallengeVerifier challenges) {
        this.flags = flags;
        this.challenges = challenges;
    }

    void check(Context ctx, String network, InetAddress address, ItemKey itemKey) {
        if (network == null) {
            return; // a loopback caller: no client network to judge
        }
        Instant now = Instant.now();
        for (FlagKey key : new FlagKey[] {FlagKey.networkDay(network), FlagKey.networkItem(network, itemKey)}) {
            active(key, now).ifPresent(flag -> {
                long retry = Math.max(1, Duration.between(now, flag.getExpiresAt()).toSeconds());
                throw new ApiProblem(429, "quota-exceeded", "Daily quota reached",
                        "your network is over its daily quota (" + flag.getReason() + "); it resets in " + retry + " s")
                        .withHeader("Retry-After", Long.toString(retry));
            });
        }
        if (active(FlagKey.challenge(network), now).isPresent()) {
            String token = ctx.header(CHALLENGE_HEADER);
            if (token == null || token.isBlank()) {
                throw new ApiProblem(403, "challenge-required", "Challenge required",
                        "many voters from your network just voted: pass the challenge and send its token in " + CHALLENGE_HEADER);
            }
            ChallengeVerifier.Verdict verdict = challenges.verify(token, address);
            if (!verdict.passed()) {
                throw new ApiProblem(403, "challenge-failed", "Challenge failed", "the challenge was not passed: " + verdict.reason());
            }
        }
    }

    private Optional<FraudFlag> active(FlagKey flagKey, Instant now) {
        String key = flagKey.toString();
        return flags.get(key).filter(f -> !now.isBefore(f.getRaisedAt()) && now.isBefore(f.getExpiresAt()));
    }
}
