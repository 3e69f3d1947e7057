package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class NetworkPrefixTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            // IPv4: the /24
            "192.0.2.77                               | 192.0.2.0/24",
            "10.1.2.3                                 | 10.1.2.0/24",
            "198.51.100.255                           | 198.51.100.0/24",
            "0.0.0.0                                  | 0.0.0.0/24",
            "255.255.255.255                          | 255.255.255.0/24",
            // IPv6 with :: in various places
            "2001:db8:ab:cd12::1                      | 2001:db8:ab:cd00::/56",
            "2001:db8::ab:cd00                        | 2001:db8:0:0::/56",
            "2001:DB8:AB:CD34::                       | 2001:db8:ab:cd00::/56",
            "::2:3:4:5:6:7:8                          | 0:2:3:0::/56",
            "1:2:3:4:5:6:7::                          | 1:2:3:0::/56",
            "1::                                      | 1:0:0:0::/56",
            "::                                       | 0:0:0:0::/56",
            "::1                                      | 0:0:0:0::/56",
            // full form, leading zeros, uppercase
            "2001:0db8:00ab:cdff:0000:0000:0000:0001  | 2001:db8:ab:cd00::/56",
            "2001:0DB8:00AB:CDFF:FFFF:FFFF:FFFF:FFFF  | 2001:db8:ab:cd00::/56",
            // the /56 boundary: only the high byte of the fourth group counts
            "2001:db8:1:2ff::                         | 2001:db8:1:200::/56",
            "2001:db8:1:ffff::                        | 2001:db8:1:ff00::/56",
            "2001:db8:1:00ff::                        | 2001:db8:1:0::/56",
            "2001:db8:1:100::                         | 2001:db8:1:100::/56",
            // IPv4-mapped (dotted and hex) is IPv4; IPv4-compatible stays IPv6
            "::ffff:203.0.113.9                       | 203.0.113.0/24",
            "::FFFF:cb00:7109                         | 203.0.113.0/24",
            "0:0:0:0:0:ffff:203.0.113.9               | 203.0.113.0/24",
            "::203.0.113.9                            | 0:0:0:0::/56",
            "64:ff9b::203.0.113.9                     | 64:ff9b:0:0::/56",
            // link-local, with and without a zone id; brackets
            "fe80::1ff:fe23:4567:890a                 | fe80:0:0:0::/56",
            "fe80::1%eth0                             | fe80:0:0:0::/56",
            "fe80::1%2                                | fe80:0:0:0::/56",
            "[2001:db8:ab:cd12::1]                    | 2001:db8:ab:cd00::/56",
            "[::1]                                    | 0:0:0:0::/56",
    })
    void shouldNormaliseEverySpellingOfANetwork(String literal, String prefix) {
        InetAddress address = NetworkPrefix.parseLiteral(literal).orElseThrow();

        assertThat(NetworkPrefix.of(address)).isEqualTo(prefix);
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {
            "", " ", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.999", "01.2.3.4", "1.2.3.04", "1.2.3.-4", "0x7f.0.0.1",
            " 1.2.3.4", "1.2.3.4 ", "1.2.3.4:80", "[1.2.3.4]", "127.1", "2130706433",
            "example.com", "localhost", "unknown", "xn--bcher-kva.example",
            "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1::2::3", ":::", ":1::2",
            "1::2:", "12345::", "g::1", "fe80::1%", "fe80::1%eth/0", "2001:db8::1%eth0", "::ffff:1.2.3",
            "::ffff:1.2.3.4.5", "::1.2.3.4:5", "[::1", "::1]", "[[::1]]", "[::1]:80", "1.2.3.4\n", "１.２.３.４",
    })
    void shouldRefuseAnythingThatIsNotExactlyOneLiteral(String text) {
        assertThat(NetworkPrefix.parseLiteral(text)).isEmpty();
    }

    @Test
    void shouldRefuseNullAndOverlongText() {
        assertThat(NetworkPrefix.parseLiteral(null)).isEmpty();
        assertThat(NetworkPrefix.parseLiteral("0".repeat(200))).isEmpty();
        String longest = "[fe80:0000:0000:0000:0000:0000:255.255.255.255%" + "z".repeat(32) + "]";
        assertThat(longest).hasSize(NetworkPrefix.MAX_LITERAL);
        assertThat(NetworkPrefix.parseLiteral(longest)).as("the longest literal there is").isPresent();
        assertThat(NetworkPrefix.parseLiteral(longest.replace("%", "% "))).isEmpty();
    }

    @Test
    void shouldYieldTheRightAddressTypes() {
        assertThat(NetworkPrefix.parseLiteral("192.0.2.1").orElseThrow()).isInstanceOf(Inet4Address.class);
        assertThat(NetworkPrefix.parseLiteral("::ffff:192.0.2.1").orElseThrow()).isInstanceOf(Inet4Address.class);
        assertThat(NetworkPrefix.parseLiteral("::ffff:10.20.30.40").orElseThrow().getHostAddress()).isEqualTo("10.20.30.40");
        assertThat(NetworkPrefix.parseLiteral("64:ff9b::1.2.3.4").orElseThrow().getHostAddress()).isEqualTo("64:ff9b:0:0:0:0:102:304");
        assertThat(NetworkPrefix.parseLiteral("2001:db8::1").orElseThrow()).isInstanceOf(Inet6Address.class);
        assertThat(NetworkPrefix.parseLiteral("2001:db8::1").orElseThrow())
                .isEqualTo(NetworkPrefix.parseLiteral("2001:0db8:0:0:0:0:0:1").orElseThrow());
    }

    @Test
    void shouldTreatAMappedInet6AddressAsIpv4() throws Exception {
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, 0, 2, 7};
        InetAddress v6 = Inet6Address.getByAddress(null, mapped, -1); // keeps the 16-byte form

        assertThat(v6).isInstanceOf(Inet6Address.class);
        assertThat(NetworkPrefix.of(v6)).isEqualTo("192.0.2.0/24");
    }
}
