package dev.tally.ingest.challenge;

import dev.tally.common.Profile;
import java.net.InetAddress;

/**
 * The test verifier of the dev profile: passes exactly the token {@value #TOKEN} and nothing else, so local runs,
 * demos and integration tests can vote without a Cloudflare account while still exercising the refusal path
 * (any other token fails). It refuses to exist outside the dev profile, so a misconfigured production cannot
 * fall back to a token printed in the source.
 */
public final class DevChallengeVerifier implements ChallengeVerifier {
    /** The one token this verifier accepts. */
    public static final String TOKEN = "dev-pass";

    /** @throws IllegalStateException unless {@code profile} is dev */
    public DevChallengeVerifier(Profile profile) {
        if (!profile.isDev()) {
            throw new IllegalStateException("the dev challenge verifier is for the dev profile only, not "
                    + profile.name());
        }
    }

    @Override
    public Verdict verify(String token, InetAddress clientAddress) {
        if (token == null || token.isEmpty()) {
            return Verdict.fail("missing challenge token");
        }
        return TOKEN.equals(token)
                ? Verdict.pass("dev test token")
                : Verdict.fail("not the dev test token (" + TOKEN + ")");
    }

    @Override
    public String toString() {
        return "DevChallengeVerifier[token=" + TOKEN + "]";
    }
}
