package dev.tally.ingest.challenge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import dev.tally.ingest.challenge.ChallengeVerifier.Verdict;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChallengeConfigTest {
    private static final String SECRET = "0x4AAAAAAA-config-secret";
    private static final Profile DEV = new Profile("dev");
    private static final Profile PROD = new Profile("prod");
    private static final InetAddress CLIENT = InetAddress.getLoopbackAddress();

    private static Env env(String... pairs) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put(pairs[i], pairs[i + 1]);
        }
        return Env.of(values);
    }

    /** A working Turnstile configuration, with some variables replaced. */
    private static Env turnstile(String... overrides) {
        Env env = env("TALLY_TURNSTILE_SECRET", SECRET, "TALLY_CHALLENGE_HOSTNAMES", "tally.example");
        for (int i = 0; i < overrides.length; i += 2) {
            env = env.with(overrides[i], overrides[i + 1]);
        }
        return env;
    }

    @Test
    void devWithoutSecretUsesTheDevVerifier() {
        ChallengeVerifier verifier = ChallengeConfig.from(env(), DEV);
        assertThat(verifier).isInstanceOf(DevChallengeVerifier.class);
        assertThat(verifier.verify("dev-pass", CLIENT).passed()).isTrue();
    }

    @Test
    void outsideDevWithoutSecretEveryVoteFails() {
        ChallengeVerifier verifier = ChallengeConfig.from(env(), PROD);
        for (String token : new String[] {"dev-pass", "anything", "", null}) {
            assertThat(verifier.verify(token, CLIENT))
                    .isEqualTo(Verdict.fail("no challenge verifier configured (TALLY_TURNSTILE_SECRET)"));
        }
        assertThat(ChallengeConfig.from(env("TALLY_TURNSTILE_SECRET", "  "), new Profile("staging"))
                .verify("dev-pass", CLIENT).passed()).isFalse();
    }

    @Test
    void secretSelectsTurnstileWithDefaults() {
        for (Profile profile : new Profile[] {DEV, PROD}) {
            ChallengeVerifier verifier = ChallengeConfig.from(turnstile(), profile);
            assertThat(verifier).isInstanceOfSatisfying(TurnstileVerifier.class, t -> {
                assertThat(t.siteverifyUrl())
                        .hasToString("https://challenges.cloudflare.com/turnstile/v0/siteverify");
                assertThat(t.hostnames()).containsExactly("tally.example");
                assertThat(t.action()).isEqualTo("vote");
            });
            assertThat(verifier.toString()).doesNotContain(SECRET);
        }
    }

    @Test
    void readsUrlHostnamesAndAction() {
        TurnstileVerifier verifier = (TurnstileVerifier) ChallengeConfig.from(turnstile(
                "TALLY_TURNSTILE_URL", "http://127.0.0.1:9/siteverify",
                "TALLY_CHALLENGE_HOSTNAMES", " Tally.Example, www.tally.example ,localhost",
                "TALLY_CHALLENGE_ACTION", "rate_visual"), PROD);
        assertThat(verifier.siteverifyUrl()).hasToString("http://127.0.0.1:9/siteverify");
        assertThat(verifier.hostnames()).containsExactlyInAnyOrder("tally.example", "www.tally.example", "localhost");
        assertThat(verifier.action()).isEqualTo("rate_visual");
    }

    @Test
    void endToEndAgainstTheFake() throws Exception {
        try (FakeSiteverify fake = new FakeSiteverify()) {
            fake.answer("{\"success\":true,\"hostname\":\"tally.example\",\"action\":\"vote\"}");
            ChallengeVerifier verifier = ChallengeConfig.from(turnstile("TALLY_TURNSTILE_URL", fake.url().toString()),
                    PROD);
            assertThat(verifier.verify("a-token", CLIENT).passed()).isTrue();
            assertThat(fake.received().get(0).form())
                    .containsEntry("secret", SECRET).containsEntry("response", "a-token")
                    .containsEntry("remoteip", CLIENT.getHostAddress());
        }
    }

    @Test
    void hostnamesAreRequiredWithTheSecret() {
        Env env = env("TALLY_TURNSTILE_SECRET", SECRET);
        for (Profile profile : new Profile[] {DEV, PROD}) {
            assertThatThrownBy(() -> ChallengeConfig.from(env, profile))
                    .isInstanceOf(Env.ConfigException.class)
                    .hasMessageContaining("TALLY_CHALLENGE_HOSTNAMES").hasMessageContaining("required")
                    .hasMessageNotContaining(SECRET);
        }
    }

    @Test
    void badHostnamesNameTheVariable() {
        for (String bad : new String[] {"https://tally.example", "*.tally.example", "tally.example:443",
                "tally.example/vote", "tally.example,,www.tally.example", ",", "tally.example,", "tal ly.example"}) {
            assertThatThrownBy(() -> ChallengeConfig.from(turnstile("TALLY_CHALLENGE_HOSTNAMES", bad), PROD))
                    .as(bad)
                    .isInstanceOf(Env.ConfigException.class)
                    .hasMessageStartingWith("TALLY_CHALLENGE_HOSTNAMES=")
                    .hasMessageNotContaining(SECRET);
        }
    }

    @Test
    void badUrlNamesTheVariable() {
        for (String bad : new String[] {"not a url", "/relative/path", "http://challenges.cloudflare.com/x",
                "ftp://127.0.0.1/x", "https://user:pw@challenges.cloudflare.com/x", "https:///nohost"}) {
            assertThatThrownBy(() -> ChallengeConfig.from(turnstile("TALLY_TURNSTILE_URL", bad), PROD))
                    .as(bad)
                    .isInstanceOf(Env.ConfigException.class)
                    .hasMessageStartingWith("TALLY_TURNSTILE_URL=")
                    .hasMessageNotContaining(SECRET);
        }
        assertThat(ChallengeConfig.from(turnstile("TALLY_TURNSTILE_URL", "http://localhost:8080/v"), PROD))
                .isInstanceOf(TurnstileVerifier.class);
    }

    @Test
    void badActionNamesTheVariable() {
        for (String bad : new String[] {"vote now", "x".repeat(33), "vöte", "vote;drop"}) {
            assertThatThrownBy(() -> ChallengeConfig.from(turnstile("TALLY_CHALLENGE_ACTION", bad), PROD))
                    .as(bad)
                    .isInstanceOf(Env.ConfigException.class)
                    .hasMessageStartingWith("TALLY_CHALLENGE_ACTION=");
        }
    }
}
