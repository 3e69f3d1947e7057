package dev.tally.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.webhooks.AddressGuard.Cidr;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.Promise;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The SSRF rules, address by address: what a webhook may never reach unless allowed, in every form it can be written. */
class AddressGuardTest {
    private final AddressGuard guard = new AddressGuard(List.of(), Runnable::run);

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(strings = {
            "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254", "127.0.0.1", "127.1.2.3",
            "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.0.1",
            "192.168.255.255", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
            "240.0.0.1", "255.255.255.255",
            "::", "::1", "fc00::1", "fd12:3456:789a::1", "fe80::1", "febf::1", "fec0::1", "ff02::1", "ff05::2",
            "2001:db8::1", "2001::1", "100::1"})
    void refusesPrivateLoopbackLinkLocalCgnatMulticastDocumentationAndReserved(String address) throws Exception {
        assertThat(guard.refusal(InetAddress.getByName(address))).as(address).isNotNull().contains("TALLY_WEBHOOK_ALLOW_NETWORKS");
    }

    @ParameterizedTest(name = "{0} is allowed")
    @ValueSource(strings = {"1.1.1.1", "8.8.8.8", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255",
            "172.32.0.1", "192.167.255.255", "198.17.255.255", "223.255.255.255", "2606:4700:4700::1111", "2a00:1450:4001::200e"})
    void allowsPublicAddresses(String address) throws Exception {
        assertThat(guard.refusal(InetAddress.getByName(address))).as(address).isNull();
    }

    @ParameterizedTest(name = "{0} carries a refused IPv4 address")
    @ValueSource(strings = {"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::127.0.0.1", "::10.0.0.1",
            "64:ff9b::10.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:c0a8:101::1"})
    void refusesIpv4AddressesWrittenAsIpv6(String text) throws Exception {
        // Java turns ::ffff:a.b.c.d into an IPv4 address; build the IPv6 form by its bytes as well, as a resolver may
        InetAddress parsed = InetAddress.getByName(text);
        assertThat(guard.refusal(parsed)).as(text).isNotNull();
        byte[] bytes = Cidr.parse(text).network();
        InetAddress v6 = Inet6Address.getByAddress(null, bytes, null);
        assertThat(v6).isInstanceOf(Inet6Address.class);
        assertThat(guard.refusal(v6)).as("%s as IPv6 bytes", text).isNotNull();
    }

    @Test
    void ipv4WrittenAsIpv6IsAllowedWhenItsIpv4AddressIsPublic() throws Exception {
        byte[] bytes = Cidr.parse("::ffff:8.8.8.8").network();
        assertThat(guard.refusal(Inet6Address.getByAddress(null, bytes, null))).isNull();
        assertThat(guard.refusal(InetAddress.getByName("64:ff9b::808:808"))).isNull();
    }

    @Test
    void allowedNetworksLetTheirAddressesThroughAndNothingElse() throws Exception {
        AddressGuard allowing = new AddressGuard(List.of(Cidr.parse("10.1.0.0/16"), Cidr.parse("fd00::/8")), Runnable::run);
        assertThat(allowing.refusal(InetAddress.getByName("10.1.2.3"))).isNull();
        assertThat(allowing.refusal(InetAddress.getByName("fd00::5"))).isNull();
        assertThat(allowing.refusal(Inet6Address.getByAddress(null, Cidr.parse("::ffff:10.1.2.3").network(), null))).isNull();
        assertThat(allowing.refusal(InetAddress.getByName("10.2.0.1"))).isNotNull();
        assertThat(allowing.refusal(InetAddress.getByName("127.0.0.1"))).isNotNull();
        assertThat(allowing.refusal(InetAddress.getByName("fe80::1"))).isNotNull();
    }

    @Test
    void networksParseStrictly() {
        assertThat(Cidr.parse("192.168.0.0/16").contains(addr("192.168.4.4"))).isTrue();
        assertThat(Cidr.parse("192.168.0.0/16").contains(addr("192.169.0.0"))).isFalse();
        assertThat(Cidr.parse("100.64.0.0/10").contains(addr("100.127.0.1"))).isTrue();
        assertThat(Cidr.parse("100.64.0.0/10").contains(addr("100.128.0.1"))).isFalse();
        assertThat(Cidr.parse("10.0.0.1").contains(addr("10.0.0.1"))).isTrue();
        assertThat(Cidr.parse("10.0.0.1").contains(addr("10.0.0.2"))).isFalse();
        assertThat(Cidr.parse("fc00::/7").contains(addr("fdff::1"))).isTrue();
        assertThat(Cidr.parse("fc00::/7").contains(addr("10.0.0.1"))).isFalse();
        for (String bad : List.of("example.com/8", "10.0.0.0/33", "fc00::/129", "10.0.0/8", "10.0.0.0/x", "", "1.2.3.4.5/8")) {
            assertThatThrownBy(() -> Cidr.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(Cidr.parse("0.0.0.0/0").contains(addr("203.0.113.9"))).as("a prefix of 0 holds every address").isTrue();
        assertThat(Cidr.parse("10.0.0.1/32").contains(addr("10.0.0.1"))).isTrue();
        assertThat(Cidr.parse("::1/128").contains(addr("::1"))).isTrue();
        assertThat(Cidr.all("10.0.0.0/8", "::1")).extracting(Cidr::toString).containsExactly("10.0.0.0/8", "::1");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).hasMessage("'10.0.0.0/33': the prefix length must be 0 to 32");
        assertThatThrownBy(() -> Cidr.parse("fc00::/-1")).hasMessage("'fc00::/-1': the prefix length must be 0 to 128");
        assertThatThrownBy(() -> Cidr.parse("/8")).hasMessageContaining("is not an IPv4 or IPv6 network");
    }

    @Test
    void aRefusalNamesTheAddressItsNetworkAndTheIpv4AddressItCarries() throws Exception {
        assertThat(guard.refusal(InetAddress.getByName("10.1.2.3"))).isEqualTo("10.1.2.3 is in 10.0.0.0/8, which webhooks may not "
                + "reach unless TALLY_WEBHOOK_ALLOW_NETWORKS lists it");
        assertThat(guard.refusal(InetAddress.getByName("64:ff9b::10.0.0.1"))).startsWith("64:ff9b:0:0:0:0:a00:1 is in ")
                .contains(" (as 10.0.0.1), which webhooks may not reach");
    }

    @Test
    void theResolverRefusesAHostWhenAnyOfItsAddressesIsRefusedAndHandsOverTheCheckedOnes() throws Exception {
        assertThat(resolve(guard, "localhost")).isInstanceOf(AddressGuard.RefusedAddressException.class);
        assertThat(resolve(guard, "10.0.0.1")).isInstanceOf(AddressGuard.RefusedAddressException.class);
        Object ok = resolve(new AddressGuard(List.of(Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128")), Runnable::run), "127.0.0.1");
        assertThat(ok).isInstanceOf(List.class);
        @SuppressWarnings("unchecked")
        List<InetSocketAddress> addresses = (List<InetSocketAddress>) ok;
        assertThat(addresses).extracting(a -> a.getAddress().getHostAddress()).containsExactly("127.0.0.1");
        assertThat(addresses).extracting(InetSocketAddress::getPort).containsExactly(443);
    }

    @Test
    void theResolverFailsAHostItCannotReadOrUse() throws Exception {
        assertThat(resolve(guard, "[::1")).as("not an address, and no lookup").isInstanceOf(java.net.UnknownHostException.class)
                .isNotInstanceOf(AddressGuard.RefusedAddressException.class);
        AddressGuard loopback = new AddressGuard(List.of(Cidr.parse("127.0.0.0/8")), Runnable::run);
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        loopback.resolve("127.0.0.1", 70_000, java.util.Map.of(), Promise.from(ok -> failed.complete(null), failed::complete));
        assertThat(failed.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    }

    private static Object resolve(AddressGuard guard, String host) throws Exception {
        CompletableFuture<Object> out = new CompletableFuture<>();
        guard.resolve(host, 443, java.util.Map.of(), new Promise<>() {
            @Override
            public void succeeded(List<InetSocketAddress> result) {
                out.complete(result);
            }

            @Override
            public void failed(Throwable x) {
                out.complete(x);
            }
        });
        return out.get(10, TimeUnit.SECONDS);
    }

    private static InetAddress addr(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
