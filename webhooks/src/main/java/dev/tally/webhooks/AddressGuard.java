package dev.tally.webhooks;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * Where a webhook may connect. A receiver's host is resolved when a delivery is sent, every address it resolves to
 * is checked, and the connection goes to the addresses checked: Jetty's client connects to what this resolver
 * returns, so there is no second lookup for a DNS answer to change in between. Refused, unless
 * {@code TALLY_WEBHOOK_ALLOW_NETWORKS} lists them: loopback, private, link-local, CGNAT, unique-local, multicast,
 * documentation, benchmarking and reserved ranges, in IPv4 and IPv6, and IPv4 addresses written as IPv6
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4) by the IPv4 address inside them.
 */
public final class AddressGuard implements SocketAddressResolver {
    /** Networks no webhook reaches unless allowed. */
    static final List<Cidr> REFUSED = Cidr.all(
            "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
            "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
            "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
            "::/128", "::1/128", "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8");

    private final List<Cidr> allowed;
    private final Executor executor;

    /**
     * @param allowed  networks let through although refused above (a receiver on a private network on purpose)
     * @param executor where the blocking DNS lookups run
     */
    public AddressGuard(List<Cidr> allowed, Executor executor) {
        this.allowed = List.copyOf(allowed);
        this.executor = executor;
    }

    /** Null when a webhook may connect to {@code address}; else why not. */
    public String refusal(InetAddress address) {
        InetAddress checked = embeddedIpv4(address);
        for (Cidr ok : allowed) {
            if (ok.contains(address) || ok.contains(checked)) {
                return null;
            }
        }
        for (Cidr refused : REFUSED) {
            if (refused.contains(checked) || refused.contains(address)) {
                return address.getHostAddress() + " is in " + refused
                        + (checked == address ? "" : " (as " + checked.getHostAddress() + ")")
                        + ", which webhooks may not reach unless TALLY_WEBHOOK_ALLOW_NETWORKS lists it";
            }
        }
        return null;
    }

    /**
     * The IPv4 address an IPv6 address carries ({@code ::ffff:a.b.c.d}, {@code ::a.b.c.d}, {@code 64:ff9b::a.b.c.d},
     * {@code 2002:AABB:CCDD::}), else the address itself.
     */
    static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        boolean zeros80 = allZero(b, 0, 10);
        byte[] v4 = null;
        if (zeros80 && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
            v4 = Arrays.copyOfRange(b, 12, 16); // IPv4-mapped
        } else if (zeros80 && b[10] == 0 && b[11] == 0 && !allZero(b, 12, 15)) {
            v4 = Arrays.copyOfRange(b, 12, 16); // IPv4-compatible (deprecated), not :: or ::1
        } else if ((b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
                && allZero(b, 4, 12)) {
            v4 = Arrays.copyOfRange(b, 12, 16); // NAT64 well-known prefix
        } else if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
            v4 = Arrays.copyOfRange(b, 2, 6); // 6to4
        }
        if (v4 == null) {
            return address;
        }
        try {
            return InetAddress.getByAddress(v4);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Resolves {@code host}, refusing the whole host when any address it resolves to is refused. */
    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        executor.execute(() -> {
            try {
                InetAddress[] addresses = InetAddress.getAllByName(host);
                List<InetSocketAddress> out = new ArrayList<>();
                for (InetAddress address : addresses) {
                    String why = refusal(address);
                    if (why != null) {
                        promise.failed(new RefusedAddressException(host + ": " + why));
                        return;
                    }
                    out.add(new InetSocketAddress(address, port));
                }
                promise.succeeded(out);
            } catch (UnknownHostException e) {
                promise.failed(e);
            } catch (RuntimeException e) {
                promise.failed(e);
            }
        });
    }

    /** A receiver's address webhooks may not reach. */
    public static final class RefusedAddressException extends UnknownHostException {
        RefusedAddressException(String message) {
            super(message);
        }
    }

    /** A network: an address and how many of its leading bits are fixed. */
    public record Cidr(byte[] network, int bits, String text) {
        /** Parses {@code a.b.c.d/n} or {@code ipv6/n} (a bare address is /32 or /128). */
        public static Cidr parse(String text) {
            String t = text.trim();
            int slash = t.indexOf('/');
            String host = slash == -1 ? t : t.substring(0, slash);
            if (!host.matches("[0-9a-fA-F:.]+") || (!host.contains(":") && !host.matches("\\d{1,3}(\\.\\d{1,3}){3}"))) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 or IPv6 network (a.b.c.d/n or x:x::/n)");
            }
            byte[] address;
            try {
                address = InetAddress.getByName(host).getAddress(); // a literal: no lookup
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 or IPv6 network", e);
            }
            if (host.contains(":") && address.length == 4) { // Java reads ::ffff:a.b.c.d as IPv4; keep the form written
                byte[] v6 = new byte[16];
                v6[10] = (byte) 0xff;
                v6[11] = (byte) 0xff;
                System.arraycopy(address, 0, v6, 12, 4);
                address = v6;
            }
            int bits;
            try {
                bits = slash == -1 ? address.length * 8 : Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "': the prefix length must be a number", e);
            }
            if (bits < 0 || bits > address.length * 8) {
                throw new IllegalArgumentException("'" + text + "': the prefix length must be 0 to " + address.length * 8);
            }
            return new Cidr(address, bits, t);
        }

        static List<Cidr> all(String... texts) {
            return Arrays.stream(texts).map(Cidr::parse).toList();
        }

        /** Whether {@code address} (of the same family) lies in this network. */
        public boolean contains(InetAddress address) {
            byte[] a = address.getAddress();
            if (address instanceof Inet4Address && network.length == 16) {
                return false;
            }
            if (a.length != network.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (a[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (a[full] & mask) == (network[full] & mask);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
