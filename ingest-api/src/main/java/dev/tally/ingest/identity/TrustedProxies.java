package dev.tally.ingest.identity;

import dev.tally.common.Env;
import dev.tally.common.NetworkPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The proxies whose {@code X-Forwarded-For} we believe ({@code TALLY_TRUSTED_PROXIES}): a list of addresses and
 * CIDR blocks. Anyone else can write that header, so from anyone else it is ignored. An IPv4-mapped IPv6 peer
 * ({@code ::ffff:10.0.0.1}) is matched as the IPv4 address it is.
 */
public final class TrustedProxies {
    static final String VARIABLE = "TALLY_TRUSTED_PROXIES";
    /** What the dev profile trusts: the loopback addresses, where a local reverse proxy would run. */
    static final String DEV_DEFAULT = "127.0.0.1/32,::1/128";

    /** One block: the address bytes with host bits cleared, and the prefix length. */
    private record Block(byte[] network, int bits) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            return Arrays.equals(mask(address, bits), network);
        }
    }

    private final List<Block> blocks;

    private TrustedProxies(List<Block> blocks) {
        this.blocks = List.copyOf(blocks);
    }

    public static TrustedProxies none() {
        return new TrustedProxies(List.of());
    }

    /** {@code TALLY_TRUSTED_PROXIES} [dev: 127.0.0.1/32,::1/128; otherwise none]. */
    public static TrustedProxies from(Env env, boolean devProfile) {
        return parse(env.string(VARIABLE, devProfile ? DEV_DEFAULT : ""));
    }

    /**
     * Comma-separated IP literals ({@code 10.0.0.7}, {@code ::1}) and CIDR blocks ({@code 10.0.0.0/8},
     * {@code 2001:db8::/32}); host bits of a block are ignored. Anything else is a config error naming
     * {@code TALLY_TRUSTED_PROXIES} — a typo here must stop the service, not silently trust no one (or everyone).
     */
    public static TrustedProxies parse(String spec) {
        List<Block> blocks = new ArrayList<>();
        if (spec == null || spec.isBlank()) {
            return new TrustedProxies(blocks);
        }
        for (String raw : spec.split(",", -1)) {
            String entry = raw.strip();
            int slash = entry.indexOf('/');
            String literal = slash == -1 ? entry : entry.substring(0, slash);
            Optional<InetAddress> address = NetworkPrefix.parseLiteral(literal);
            if (address.isEmpty()) {
                throw new Env.ConfigException(VARIABLE, spec, "comma-separated IP addresses or CIDR blocks such as "
                        + "10.0.0.0/8 or 2001:db8::/32 (bad entry '" + entry + "')");
            }
            byte[] bytes = address.get().getAddress();
            int max = bytes.length * 8;
            int bits = max;
            if (slash != -1) {
                String length = entry.substring(slash + 1);
                if (!length.matches("[0-9]{1,3}") || Integer.parseInt(length) > max) {
                    throw new Env.ConfigException(VARIABLE, spec, "a prefix length from 0 to " + max
                            + " after '/' (bad entry '" + entry + "')");
                }
                bits = Integer.parseInt(length);
            }
            blocks.add(new Block(mask(bytes, bits), bits));
        }
        return new TrustedProxies(blocks);
    }

    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 16 && isIpv4Mapped(bytes)) {
            bytes = Arrays.copyOfRange(bytes, 12, 16);
        }
        for (Block block : blocks) {
            if (block.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    private static byte[] mask(byte[] address, int bits) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            out[i] = (byte) (out[i] & (0xff00 >>> keep));
        }
        return out;
    }

    private static boolean isIpv4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }

    @Override
    public String toString() {
        return "TrustedProxies[" + blocks.size() + " blocks]";
    }
}
