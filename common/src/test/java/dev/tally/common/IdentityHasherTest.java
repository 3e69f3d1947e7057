package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class IdentityHasherTest {
    private static final String MASTER = "0123456789abcdef0123456789abcdef-test";
    private static final LocalDate DAY = LocalDate.of(2026, 3, 14);

    private final IdentityHasher hasher = new IdentityHasher(Secrets.of(MASTER));

    private static InetAddress ip(String literal) {
        return NetworkPrefix.parseLiteral(literal).orElseThrow();
    }

    @Test
    void shouldHashTheSameNeighbourhoodAlike() {
        String hash = hasher.network(ip("198.51.100.7"), DAY);

        assertThat(hash).hasSize(64).matches("[0-9a-f]+");
        assertThat(hasher.network(ip("198.51.100.250"), DAY)).isEqualTo(hash);
        assertThat(hasher.network(ip("::ffff:198.51.100.1"), DAY)).isEqualTo(hash);
        assertThat(hasher.network(ip("198.51.101.7"), DAY)).isNotEqualTo(hash);

        String v6 = hasher.network(ip("2001:db8:ab:cd12::1"), DAY);
        assertThat(hasher.network(ip("2001:DB8:AB:CDFF:1:2:3:4"), DAY)).isEqualTo(v6);
        assertThat(hasher.network(ip("2001:db8:ab:ce00::1"), DAY)).isNotEqualTo(v6);
    }

    @Test
    void shouldRotateDaily() {
        assertThat(hasher.network(ip("198.51.100.7"), DAY))
                .isNotEqualTo(hasher.network(ip("198.51.100.7"), DAY.plusDays(1)));
    }

    @Test
    void shouldBeTheDocumentedKeyedHashAndRevealNoAddress() {
        String hash = hasher.network(ip("198.51.100.7"), DAY);
        Secrets secrets = Secrets.of(MASTER);
        String expected = java.util.HexFormat.of().formatHex(
                Secrets.hmac(secrets.derive("network"), "2026-03-14:198.51.100.0/24"));

        assertThat(hash).isEqualTo(expected);
        assertThat(hash).doesNotContain("198").doesNotContain("c63364"); // neither the text nor the hex of the address
        assertThat(hash).isNotEqualTo(hasher.voter("2026-03-14:198.51.100.0/24")); // its own key
        assertThat(new IdentityHasher(Secrets.of(MASTER + "x")).network(ip("198.51.100.7"), DAY)).isNotEqualTo(hash);
    }
}
