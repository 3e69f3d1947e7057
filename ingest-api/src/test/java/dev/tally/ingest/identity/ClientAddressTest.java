package dev.tally.ingest.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.common.NetworkPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientAddressTest {
    private static final ClientAddress BEHIND_PROXIES =
            new ClientAddress(TrustedProxies.parse("10.0.0.0/8, 2001:db8:ffff::/48, 127.0.0.1"));
    private static final ClientAddress DIRECT = new ClientAddress(TrustedProxies.none());

    private static InetAddress ip(String literal) {
        return NetworkPrefix.parseLiteral(literal).orElseThrow();
    }

    private static Optional<InetAddress> resolve(ClientAddress resolver, String peer, String... xff) {
        return resolver.resolve(peer, Arrays.asList(xff));
    }

    @Test
    void shouldUseTheSocketPeerWithoutProxies() {
        assertThat(resolve(DIRECT, "203.0.113.9")).contains(ip("203.0.113.9"));
        assertThat(resolve(DIRECT, "[2001:db8::7]")).contains(ip("2001:db8::7"));
        assertThat(resolve(DIRECT, "::ffff:203.0.113.9")).contains(ip("203.0.113.9"));
        assertThat(DIRECT.resolve("203.0.113.9", null)).contains(ip("203.0.113.9"));
    }

    @Test
    void shouldIgnoreForwardedForFromAnUntrustedPeer() {
        assertThat(resolve(DIRECT, "203.0.113.9", "198.51.100.1")).contains(ip("203.0.113.9"));
        assertThat(resolve(BEHIND_PROXIES, "203.0.113.9", "198.51.100.1, 10.0.0.2")).contains(ip("203.0.113.9"));
        assertThat(resolve(BEHIND_PROXIES, "203.0.113.9", "garbage")).as("not even parsed").contains(ip("203.0.113.9"));
    }

    @Test
    void shouldTakeTheRightmostUntrustedEntryBehindTrustedProxies() {
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "198.51.100.7")).contains(ip("198.51.100.7"));
        // the client claims 1.1.1.1; our proxies appended the real address and then themselves
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "1.1.1.1, 198.51.100.7, 10.0.0.5, 10.9.9.9"))
                .contains(ip("198.51.100.7"));
        // several header lines are one list, in order
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "1.1.1.1, 198.51.100.7", "10.0.0.5"))
                .contains(ip("198.51.100.7"));
        assertThat(resolve(BEHIND_PROXIES, "2001:db8:ffff::1", "2001:db8:1234::42, 2001:db8:ffff::2"))
                .contains(ip("2001:db8:1234::42"));
        assertThat(resolve(BEHIND_PROXIES, "::ffff:10.0.0.1", "198.51.100.7")).as("mapped peer")
                .contains(ip("198.51.100.7"));
        assertThat(resolve(BEHIND_PROXIES, "[::ffff:10.0.0.1]", "::ffff:10.0.0.3, ::ffff:198.51.100.7"))
                .contains(ip("198.51.100.7"));
    }

    @Test
    void shouldNotReadClientWrittenEntriesLeftOfTheClient() {
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "garbage, unknown, 198.51.100.7")).contains(ip("198.51.100.7"));
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", ", 198.51.100.7, 10.0.0.2")).contains(ip("198.51.100.7"));
    }

    @Test
    void shouldAcceptPortsAsLoadBalancersWriteThem() {
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "198.51.100.7:5123")).contains(ip("198.51.100.7"));
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "[2001:db8::9]:443")).contains(ip("2001:db8::9"));
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "[2001:db8::9]")).contains(ip("2001:db8::9"));
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {
            "unknown", "", " ", ",", "198.51.100.7,", "198.51.100.7,,10.0.0.2", "example.com",
            "198.51.100.7, _hidden", "198.51.100.7 10.0.0.2", "198.51.100.7;10.0.0.2", "1.2.3.4:", "1.2.3.4:http",
            "1.2.3.4:123456", "[2001:db8::9", "[2001:db8::9]:", "[2001:db8::9]x", "2001:db8::9:", "::ffff:1.2.3.4:80",
            "\"198.51.100.7\"", "for=198.51.100.7", "256.0.0.1", "0x7f000001", "198.51.100.7, 10.0.0.2, nope",
    })
    void shouldFailClosedOnAMalformedEntry(String xff) {
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", xff)).isEmpty();
    }

    @Test
    void shouldFailClosedOnAnAbsurdlyLongChain() {
        List<String> many = new ArrayList<>(Collections.nCopies(ClientAddress.MAX_ENTRIES, "10.0.0.2"));
        many.add(0, "198.51.100.7");

        assertThat(BEHIND_PROXIES.resolve("10.0.0.1", List.of(String.join(",", many)))).isEmpty();
        assertThat(BEHIND_PROXIES.resolve("10.0.0.1", List.of(String.join(",", many.subList(0, 10)))))
                .contains(ip("198.51.100.7"));
    }

    @Test
    void shouldTakeTheLeftmostHopWhenTheWholeChainIsTrusted() {
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1", "10.1.2.3, 10.0.0.5")).contains(ip("10.1.2.3"));
        assertThat(resolve(BEHIND_PROXIES, "127.0.0.1", "127.0.0.1")).contains(ip("127.0.0.1"));
    }

    @Test
    void shouldUseATrustedPeerThatSendsNoForwardedFor() {
        assertThat(resolve(BEHIND_PROXIES, "10.0.0.1")).contains(ip("10.0.0.1"));
        assertThat(BEHIND_PROXIES.resolve("10.0.0.1", null)).contains(ip("10.0.0.1"));
    }

    @Test
    void shouldBeEmptyWithoutAUsablePeer() {
        assertThat(resolve(DIRECT, null)).isEmpty();
        assertThat(resolve(DIRECT, "")).isEmpty();
        assertThat(resolve(DIRECT, "localhost")).isEmpty();
        assertThat(resolve(BEHIND_PROXIES, "not-an-ip", "198.51.100.7")).isEmpty();
    }

    // ---- TALLY_TRUSTED_PROXIES -----------------------------------------------------------------------------

    @Test
    void shouldTrustLoopbackInDevAndNothingElsewhereByDefault() {
        ClientAddress dev = ClientAddress.from(Env.of(Map.of()), true);
        ClientAddress prod = ClientAddress.from(Env.of(Map.of()), false);

        assertThat(dev.resolve("127.0.0.1", List.of("198.51.100.7"))).contains(ip("198.51.100.7"));
        assertThat(dev.resolve("[::1]", List.of("198.51.100.7"))).contains(ip("198.51.100.7"));
        assertThat(dev.resolve("127.0.0.2", List.of("198.51.100.7"))).contains(ip("127.0.0.2"));
        assertThat(dev.resolve("127.0.0.1", List.of())).contains(ip("127.0.0.1"));
        assertThat(prod.resolve("127.0.0.1", List.of("198.51.100.7"))).contains(ip("127.0.0.1"));

        ClientAddress configured = ClientAddress.from(Env.of(Map.of("TALLY_TRUSTED_PROXIES", "192.0.2.0/24")), false);
        assertThat(configured.resolve("192.0.2.200", List.of("198.51.100.7"))).contains(ip("198.51.100.7"));
    }

    @Test
    void shouldMatchCidrBlocksExactly() {
        TrustedProxies trusted = TrustedProxies.parse("10.1.2.3/8,192.0.2.128/25,2001:db8:ab00::/40,::1,0.0.0.0/32");

        assertThat(trusted.contains(ip("10.255.255.255"))).isTrue(); // host bits in the spec are ignored
        assertThat(trusted.contains(ip("11.0.0.0"))).isFalse();
        assertThat(trusted.contains(ip("192.0.2.128"))).isTrue();
        assertThat(trusted.contains(ip("192.0.2.127"))).isFalse();
        assertThat(trusted.contains(ip("2001:db8:abff:ffff::1"))).isTrue();
        assertThat(trusted.contains(ip("2001:db8:ac00::1"))).isFalse();
        assertThat(trusted.contains(ip("::1"))).isTrue();
        assertThat(trusted.contains(ip("::2"))).isFalse();
        assertThat(trusted.contains(ip("::ffff:10.0.0.1"))).isTrue();
        assertThat(TrustedProxies.parse("0.0.0.0/0").contains(ip("198.51.100.7"))).isTrue();
        assertThat(TrustedProxies.parse("0.0.0.0/0").contains(ip("2001:db8::1"))).isFalse();
        assertThat(TrustedProxies.parse("").isEmpty()).isTrue();
        assertThat(trusted.isEmpty()).isFalse();
        assertThat(trusted).hasToString("TrustedProxies[5 blocks]");
        assertThat(TrustedProxies.none().isEmpty()).isTrue();
        assertThat(TrustedProxies.none().contains(ip("10.0.0.1"))).isFalse();
    }

    @Test
    void shouldReadAnIpv4AddressInItsMappedIpv6FormOnly() throws Exception {
        TrustedProxies trusted = TrustedProxies.parse("10.0.0.0/8");
        assertThat(trusted.contains(v6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1))).as("::ffff:10.0.0.1").isTrue();
        assertThat(trusted.contains(v6(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 10, 0, 0, 1))).as("a bit set before").isFalse();
        assertThat(trusted.contains(v6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0xff, 10, 0, 0, 1))).isFalse();
        assertThat(trusted.contains(v6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 10, 0, 0, 1))).isFalse();
        assertThat(TrustedProxies.parse("::/0").contains(v6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1)))
                .as("read as the IPv4 address it is").isFalse();
    }

    private static InetAddress v6(int... bytes) throws Exception {
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) {
            b[i] = (byte) bytes[i];
        }
        return java.net.Inet6Address.getByAddress(null, b, null);
    }

    @Test
    void shouldTakeAChainOfExactlyTheLongestLength() {
        List<String> many = new ArrayList<>(Collections.nCopies(ClientAddress.MAX_ENTRIES - 1, "10.0.0.2"));
        many.add(0, "198.51.100.7");
        assertThat(BEHIND_PROXIES.resolve("10.0.0.1", List.of(String.join(",", many)))).contains(ip("198.51.100.7"));
        assertThat(BEHIND_PROXIES.resolve("10.0.0.1", List.of(String.join(",", many.subList(0, 32)), String.join(",",
                many.subList(32, many.size()))))).as("over several header lines").contains(ip("198.51.100.7"));
        assertThat(BEHIND_PROXIES).hasToString("ClientAddress[TrustedProxies[3 blocks]]");
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "proxy.internal",
            "10.0.0.0/8,,10.1.0.0/16", "10.0.0.0/8;192.0.2.1", "10.0.0.*", "10.0.0.0/x"})
    void shouldNameTheVariableOfABadProxyList(String spec) {
        assertThatThrownBy(() -> TrustedProxies.parse(spec)).hasMessageContaining("TALLY_TRUSTED_PROXIES");
    }
}
