package dev.tally.ingest.challenge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Profile;
import dev.tally.ingest.challenge.ChallengeVerifier.Verdict;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class DevChallengeVerifierTest {
    private final DevChallengeVerifier verifier = new DevChallengeVerifier(new Profile("dev"));
    private final InetAddress local = InetAddress.getLoopbackAddress();

    @Test
    void passesExactlyTheDevToken() {
        assertThat(verifier.verify("dev-pass", local)).isEqualTo(Verdict.pass("dev test token"));
        assertThat(verifier.verify("dev-pass", null).passed()).isTrue();
    }

    @Test
    void failsEveryOtherToken() {
        for (String token : new String[] {"DEV-PASS", "dev-pass ", " dev-pass", "dev-pas", "dev-passx", "x"}) {
            assertThat(verifier.verify(token, local).passed()).as(token).isFalse();
        }
        assertThat(verifier.verify(null, local)).isEqualTo(Verdict.fail("missing challenge token"));
        assertThat(verifier.verify("", local)).isEqualTo(Verdict.fail("missing challenge token"));
    }

    @Test
    void refusesToExistOutsideDev() {
        assertThatThrownBy(() -> new DevChallengeVerifier(new Profile("prod")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("dev profile only");
    }
}
