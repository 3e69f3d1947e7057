package dev.tally.ingest.challenge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.ingest.challenge.ChallengeVerifier.Verdict;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TurnstileVerifierTest {
    private static final String SECRET = "0x4AAAAAAA-test-secret";
    private static final String TOKEN = "0.tok+en/with&odd=chars%";
    private static final String PASS = "{\"success\":true,\"hostname\":\"tally.example\",\"action\":\"vote\","
            + "\"challenge_ts\":\"2026-03-14T12:00:00.000Z\",\"error-codes\":[],\"cdata\":\"\"}";
    private static final InetAddress CLIENT = address("203.0.113.7");

    private FakeSiteverify fake;
    private TurnstileVerifier verifier;

    @BeforeEach
    void start() throws IOException {
        fake = new FakeSiteverify();
        verifier = verifier(Duration.ofSeconds(2), Duration.ofSeconds(3));
    }

    @AfterEach
    void stop() {
        fake.close();
    }

    private TurnstileVerifier verifier(Duration connect, Duration request) {
        return new TurnstileVerifier(fake.url(), SECRET, List.of("tally.example", "WWW.tally.example"), "vote",
                connect, request);
    }

    /** Every verdict this class sees must keep the token and the secret to itself. */
    private Verdict verify(String token, InetAddress client) {
        Verdict verdict = verifier.verify(token, client);
        assertThat(verdict.reason()).isNotBlank().doesNotContain(SECRET).hasSizeLessThan(120);
        if (token != null && token.length() > 3) {
            assertThat(verdict.reason()).doesNotContain(token);
        }
        return verdict;
    }

    private Verdict verify() {
        return verify(TOKEN, CLIENT);
    }

    @Test
    void passesWhenSuccessHostnameAndActionAllHold() {
        fake.answer(PASS);
        assertThat(verify()).isEqualTo(Verdict.pass("turnstile passed"));
    }

    @Test
    void hostnamesCompareCaseInsensitively() {
        fake.answer(PASS.replace("tally.example", "Www.Tally.Example"));
        assertThat(verify().passed()).isTrue();
    }

    @Test
    void postsTheFormWithSecretResponseAndRemoteIp() {
        fake.answer(PASS);
        verify();
        assertThat(fake.received()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.contentType()).startsWith("application/x-www-form-urlencoded");
            assertThat(r.form()).isEqualTo(Map.of("secret", SECRET, "response", TOKEN, "remoteip", "203.0.113.7"));
        });
    }

    @Test
    void remoteIpIsTheIpv6TextWithoutZone() throws Exception {
        fake.answer(PASS);
        verify(TOKEN, InetAddress.getByName("2001:db8::1"));
        verify(TOKEN, InetAddress.getByName("fe80::1%1"));
        assertThat(fake.received()).extracting(r -> r.form().get("remoteip"))
                .containsExactly("2001:db8:0:0:0:0:0:1", "fe80:0:0:0:0:0:0:1");
    }

    @Test
    void anUnknownClientAddressIsLeftOut() {
        fake.answer(PASS);
        assertThat(verify(TOKEN, null).passed()).isTrue();
        assertThat(fake.received().get(0).form()).containsOnlyKeys("secret", "response");
    }

    @Test
    void failsWhenSuccessIsFalseAndSaysWhy() {
        fake.answer("{\"success\":false,\"error-codes\":[\"timeout-or-duplicate\"]}");
        assertThat(verify()).isEqualTo(Verdict.fail("challenge not passed: [timeout-or-duplicate]"));
        fake.answer("{\"success\":false}");
        assertThat(verify()).isEqualTo(Verdict.fail("challenge not passed"));
    }

    @Test
    void failsWhenTheTokenWasMintedOnAnotherHostname() {
        fake.answer(PASS.replace("tally.example", "evil.example"));
        assertThat(verify()).isEqualTo(Verdict.fail("token minted on another hostname: evil.example"));
        fake.answer(PASS.replace("tally.example", "tally.example.evil.example"));
        assertThat(verify().passed()).isFalse();
    }

    @Test
    void failsWhenTheTokenWasMintedForAnotherAction() {
        fake.answer(PASS.replace("\"vote\"", "\"login\""));
        assertThat(verify()).isEqualTo(Verdict.fail("token minted for action login, not vote"));
        fake.answer(PASS.replace("\"vote\"", "\"Vote\""));
        assertThat(verify().passed()).isFalse();
    }

    @Test
    void echoedFieldsCannotForgeLogLines() {
        fake.answer(PASS.replace("\"vote\"", "\"x\\nINFO forged " + "y".repeat(200) + "\""));
        Verdict verdict = verify();
        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.reason()).doesNotContain("\n").startsWith("token minted for action x?INFO?forged");
    }

    @Test
    void failsOnHttpErrorsAndRedirects() {
        fake.answer(500, PASS);
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answered HTTP 500"));
        fake.answer(302, "");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answered HTTP 302"));
        fake.answer(204, "");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answered HTTP 204"));
    }

    @Test
    void failsWhenTheServerIsSlowerThanTheTimeout() {
        verifier = verifier(Duration.ofSeconds(2), Duration.ofMillis(300));
        fake.answer(PASS).delayBeforeHeaders(Duration.ofSeconds(5));
        long start = System.nanoTime();
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify timed out"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void theDeadlineAlsoBoundsATricklingBody() {
        verifier = verifier(Duration.ofSeconds(2), Duration.ofMillis(300));
        fake.answer(PASS).delayInBody(Duration.ofSeconds(5));
        long start = System.nanoTime();
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify timed out"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aSlowButTimelyServerStillPasses() {
        verifier = verifier(Duration.ofSeconds(2), Duration.ofSeconds(3));
        fake.answer(PASS).delayInBody(Duration.ofMillis(100));
        assertThat(verify().passed()).isTrue();
    }

    @Test
    void failsOnMalformedJson() {
        fake.answer("{\"success\":true,");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer is not valid JSON"));
        fake.answer(PASS + " trailing");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer is not valid JSON"));
        fake.answer("{\"success\":false,\"success\":true,\"hostname\":\"tally.example\",\"action\":\"vote\"}");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer is not valid JSON"));
        fake.answer("<html>bad gateway</html>");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer is not valid JSON"));
    }

    @Test
    void failsWhenTheAnswerIsNotAnObjectOrLacksFields() {
        fake.answer("[true]");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer is not a JSON object"));
        fake.answer("");
        assertThat(verify().passed()).isFalse();
        fake.answer("{\"hostname\":\"tally.example\",\"action\":\"vote\"}");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer lacks a boolean success"));
        fake.answer("{\"success\":\"true\",\"hostname\":\"tally.example\",\"action\":\"vote\"}");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer lacks a boolean success"));
        fake.answer("{\"success\":true,\"action\":\"vote\"}");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer lacks hostname"));
        fake.answer("{\"success\":true,\"hostname\":null,\"action\":\"vote\"}");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer lacks hostname"));
        fake.answer("{\"success\":true,\"hostname\":\"tally.example\"}");
        assertThat(verify()).isEqualTo(Verdict.fail("siteverify answer lacks action"));
    }

    @Test
    void failsOnAnOversizedAnswer() {
        fake.answer("{\"success\":true,\"hostname\":\"tally.example\",\"action\":\"vote\",\"pad\":\""
                + "x".repeat(TurnstileVerifier.MAX_ANSWER_BYTES) + "\"}");
        assertThat(verify()).isEqualTo(
                Verdict.fail("siteverify answer larger than " + TurnstileVerifier.MAX_ANSWER_BYTES + " bytes"));
    }

    @Test
    void failsWhenSiteverifyIsUnreachable() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        verifier = new TurnstileVerifier(URI.create("http://127.0.0.1:" + closedPort + "/siteverify"), SECRET,
                List.of("tally.example"), "vote");
        Verdict verdict = verify();
        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.reason()).startsWith("siteverify unreachable");
    }

    @Test
    void refusesEmptyAndOverlongTokensWithoutAsking() {
        fake.answer(PASS);
        assertThat(verify(null, CLIENT)).isEqualTo(Verdict.fail("missing challenge token"));
        assertThat(verify("", CLIENT)).isEqualTo(Verdict.fail("missing challenge token"));
        assertThat(verify("t".repeat(2049), CLIENT)).isEqualTo(Verdict.fail("challenge token longer than 2048 chars"));
        assertThat(fake.received()).isEmpty();
        assertThat(verify("t".repeat(2048), CLIENT).passed()).isTrue();
    }

    @Test
    void neverShowsTheSecret() {
        assertThat(verifier.toString()).doesNotContain(SECRET).contains("vote", "tally.example");
    }

    @Test
    void rejectsUnusableArguments() {
        URI url = fake.url();
        assertThatThrownBy(() -> new TurnstileVerifier(URI.create("/relative"), SECRET, List.of("a"), "vote"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TurnstileVerifier(URI.create("ftp://x/y"), SECRET, List.of("a"), "vote"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TurnstileVerifier(url, " ", List.of("a"), "vote"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TurnstileVerifier(url, SECRET, List.of(), "vote"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TurnstileVerifier(url, SECRET, List.of("a"), ""))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void productionDefaultsAreTheDocumentedOnes() {
        assertThat(TurnstileVerifier.CONNECT_TIMEOUT).isEqualTo(Duration.ofSeconds(2));
        assertThat(TurnstileVerifier.REQUEST_TIMEOUT).isEqualTo(Duration.ofSeconds(3));
        assertThat(TurnstileVerifier.DEFAULT_SITEVERIFY_URL)
                .hasToString("https://challenges.cloudflare.com/turnstile/v0/siteverify");
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
