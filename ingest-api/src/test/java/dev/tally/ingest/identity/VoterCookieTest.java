package dev.tally.ingest.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.Secrets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VoterCookieTest {
    private static final Secrets SECRETS = Secrets.of("0123456789abcdef0123456789abcdef-test");
    private static final Instant NOW = Instant.parse("2026-03-14T12:00:00Z");
    private static final String HOST = "votes.example.com";

    private final VoterCookie cookies = new VoterCookie(SECRETS, false);

    @Test
    void shouldRoundTrip() {
        VoterCookie.Issued issued = cookies.issue(HOST, NOW);

        assertThat(issued.voterId()).matches("[A-Za-z0-9_-]{22}");
        assertThat(issued.value()).matches("[A-Za-z0-9_-]{22}\\.[0-9]+\\.1\\.[A-Za-z0-9_-]{43}");
        assertThat(issued.value()).startsWith(issued.voterId() + "." + NOW.plus(Duration.ofDays(365)).getEpochSecond() + ".1.");
        assertThat(issued.expires()).isEqualTo(NOW.plus(Duration.ofDays(365)));
        assertThat(cookies.verify(issued.value(), HOST, NOW)).contains(issued.voterId());
        assertThat(cookies.verify(issued.value(), "VOTES.Example.com", NOW.plus(Duration.ofDays(364))))
                .contains(issued.voterId());
        assertThat(new VoterCookie(SECRETS, true).verify(issued.value(), HOST, NOW)).contains(issued.voterId());
    }

    @Test
    void shouldMacExactlyTheDocumentedInputUnderTheCookieKey() {
        String id = "AAAAAAAAAAAAAAAAAAAAAA";
        long expires = NOW.getEpochSecond() + 1000;
        String mac = Base64.getUrlEncoder().withoutPadding().encodeToString(
                Secrets.hmac(SECRETS.derive("cookie"), id + "." + expires + ".1." + HOST));
        String underVoterKey = Base64.getUrlEncoder().withoutPadding().encodeToString(
                Secrets.hmac(SECRETS.derive("voter"), id + "." + expires + ".1." + HOST));

        assertThat(cookies.verify(id + "." + expires + ".1." + mac, HOST, NOW)).contains(id);
        assertThat(cookies.verify(id + "." + expires + ".1." + underVoterKey, HOST, NOW)).isEmpty();
        assertThat(new VoterCookie(Secrets.of("another-master-secret-of-32-bytes-or-more"), false)
                .verify(id + "." + expires + ".1." + mac, HOST, NOW)).isEmpty();
    }

    @Test
    void shouldIssueAFreshRandomIdEachTime() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            ids.add(cookies.issue(HOST, NOW).voterId());
        }
        assertThat(ids).hasSize(1000);
    }

    @Test
    void shouldRefuseTamperedCookies() {
        VoterCookie.Issued issued = cookies.issue(HOST, NOW);
        String[] p = issued.value().split("\\.");
        String otherId = p[0].charAt(0) == 'A' ? "B" + p[0].substring(1) : "A" + p[0].substring(1);
        String laterExpiry = String.valueOf(Long.parseLong(p[1]) + 86_400);
        char last = p[3].charAt(42);
        String otherMac = p[3].substring(0, 42) + (last == 'A' ? 'E' : 'A');

        assertThat(cookies.verify(otherId + "." + p[1] + ".1." + p[3], HOST, NOW)).as("id").isEmpty();
        assertThat(cookies.verify(p[0] + "." + laterExpiry + ".1." + p[3], HOST, NOW)).as("expiry").isEmpty();
        assertThat(cookies.verify(p[0] + ".0" + p[1] + ".1." + p[3], HOST, NOW)).as("expiry spelling").isEmpty();
        assertThat(cookies.verify(p[0] + "." + p[1] + ".1." + otherMac, HOST, NOW)).as("mac").isEmpty();
        assertThat(cookies.verify(p[0] + "." + p[1] + ".2." + p[3], HOST, NOW)).as("version").isEmpty();
        assertThat(cookies.verify(issued.value(), "evil.example.com", NOW)).as("hostname").isEmpty();
        assertThat(cookies.verify(issued.value(), "", NOW)).as("no hostname").isEmpty();
    }

    @Test
    void shouldRefuseAnExpiredCookie() {
        VoterCookie.Issued issued = cookies.issue(HOST, NOW);

        assertThat(cookies.verify(issued.value(), HOST, issued.expires().minusSeconds(1))).isPresent();
        assertThat(cookies.verify(issued.value(), HOST, issued.expires())).isEmpty();
        assertThat(cookies.verify(issued.value(), HOST, issued.expires().plus(Duration.ofDays(30)))).isEmpty();
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {
            "",
            ".",
            "...",
            "....",
            "AAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.x",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.01.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.-1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.+1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.18e8.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA..1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.99999999999999999999.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAA+A.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAA/A.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA==.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+",
            " AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA ",
            "ÄAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAA.1805000000.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA;Path=/",
    })
    void shouldRefuseMalformedShapes(String value) {
        assertThat(cookies.verify(value, HOST, NOW)).isEmpty();
    }

    @Test
    void shouldRefuseNullAndHugeValues() {
        assertThat(cookies.verify(null, HOST, NOW)).isEmpty();
        assertThat(cookies.verify("A".repeat(100_000), HOST, NOW)).isEmpty();
    }

    @Test
    void shouldTakeTheLongestCookieThereIsAndOnlyUntilItsExpiry() {
        String id = "A".repeat(30);
        long expires = 999_999_999_999L;
        String payload = id + "." + expires + ".1";
        String value = payload + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
                Secrets.hmac(SECRETS.derive("cookie"), payload + "." + HOST));
        assertThat(value).hasSize(VoterCookie.MAX_VALUE_CHARS);
        assertThat(cookies.verified(value, HOST, NOW)).map(VoterCookie.Verified::voterId).contains(id);

        long soon = NOW.getEpochSecond() + 10;
        String shortLived = "B".repeat(22) + "." + soon + ".1";
        String cookie = shortLived + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
                Secrets.hmac(SECRETS.derive("cookie"), shortLived + "." + HOST));
        assertThat(cookies.verify(cookie, HOST, Instant.ofEpochSecond(soon - 1))).isPresent();
        assertThat(cookies.verify(cookie, HOST, Instant.ofEpochSecond(soon))).as("expired at its expiry").isEmpty();
        assertThat(cookies.verified(cookie, HOST, NOW)).map(VoterCookie.Verified::issuedAt)
                .contains(Instant.ofEpochSecond(soon).minus(VoterCookie.LIFETIME));
    }

    @Test
    void shouldSetSecureOutsideDevOnly() {
        String prod = new VoterCookie(SECRETS, false).issue(HOST, NOW).setCookieHeader();
        VoterCookie.Issued devIssued = new VoterCookie(SECRETS, true).issue(HOST, NOW);
        String dev = devIssued.setCookieHeader();

        assertThat(prod).startsWith("tally_vid=").contains("; HttpOnly").contains("; SameSite=Lax")
                .contains("; Path=/v1").contains("; Max-Age=31536000").endsWith("; Secure");
        assertThat(dev).isEqualTo("tally_vid=" + devIssued.value() + "; Max-Age=31536000; Path=/v1; HttpOnly; SameSite=Lax");
        assertThat(dev).doesNotContainIgnoringCase("secure");
    }

    @Test
    void shouldNeverPrintTheCookieValue() {
        VoterCookie.Issued issued = cookies.issue(HOST, NOW);

        assertThat(issued.toString()).doesNotContain(issued.value()).doesNotContain(issued.voterId())
                .isEqualTo("VoterCookie.Issued[expires=" + issued.expires() + "]");
        assertThat(cookies.toString()).doesNotContain("cookie=").isEqualTo("VoterCookie[secure=true]");
    }
}
