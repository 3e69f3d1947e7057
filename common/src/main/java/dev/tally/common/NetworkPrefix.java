package dev.tally.common;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The network neighbourhood of an address — the /24 of an IPv4 address, the /56 of an IPv6 address — in one
 * canonical text, so that every spelling of the same network hashes alike. A /56 and not the address because
 * one IPv6 subscriber routinely holds a whole /64 or more: per-address limits would be useless there, and a
 * neighbourhood is all a rate limit needs. Pure: no hashing here, no DNS anywhere.
 *
 * <p>Canonical forms: IPv4 {@code a.b.c.0/24}; IPv6 the first four 16-bit groups in lowercase hex without
 * leading zeros, the fourth masked to its high byte, then {@code ::/56} — e.g. {@code 2001:db8:ab:cd00::/56}
 * (always four groups, never further compressed, so the text is a fixed function of the 56 bits). An
 * IPv4-mapped IPv6 address ({@code ::ffff:1.2.3.4}) is the IPv4 address it carries.
 */
public final class NetworkPrefix {
    /** Dotted quad, decimal, no leading zeros (an {@code 010} could be read as octal elsewhere: refused). */
    private static final Pattern IPV4 = Pattern.compile(
            "(0|[1-9][0-9]{0,2})\\.(0|[1-9][0-9]{0,2})\\.(0|[1-9][0-9]{0,2})\\.(0|[1-9][0-9]{0,2})");
    private static final Pattern HEX_GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final Pattern ZONE_ID = Pattern.compile("[A-Za-z0-9_.-]{1,32}");
    /** The longest literal there is: {@code [fe80:0000:0000:0000:0000:0000:255.255.255.255%<a 32-character zone>]}. */
    static final int MAX_LITERAL = 80;

    private NetworkPrefix() {
    }

    /** The canonical prefix text of an address: {@code a.b.c.0/24} or {@code x:x:x:xx00::/56}. */
    public static String of(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length == 16 && isIpv4Mapped(b)) {
            b = Arrays.copyOfRange(b, 12, 16);
        }
        if (b.length == 4) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + ".0/24";
        }
        int g0 = group(b, 0);
        int g1 = group(b, 2);
        int g2 = group(b, 4);
        int g3 = (b[6] & 0xff) << 8; // 56 bits = 3 full groups + the high byte of the fourth
        return Integer.toHexString(g0) + ":" + Integer.toHexString(g1) + ":" + Integer.toHexString(g2) + ":"
                + Integer.toHexString(g3) + "::/56";
    }

    /**
     * An IP address from its literal text, or empty when the text is not exactly one. Never resolves a name:
     * the bytes are parsed here and handed to {@link InetAddress#getByAddress(byte[])}. Accepted: a dotted-quad
     * IPv4 (decimal, no leading zeros); an IPv6 in any RFC 4291 text form (one {@code ::}, an embedded IPv4
     * tail, any case), optionally in brackets; a zone id ({@code %eth0}, {@code %2}) only on a link-local
     * {@code fe80::/10} address, where it is dropped — it names the local interface, not a network. No
     * whitespace, no ports, no hostnames.
     */
    public static Optional<InetAddress> parseLiteral(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LITERAL) {
            return Optional.empty();
        }
        String s = text;
        boolean bracketed = s.startsWith("[");
        if (bracketed) {
            if (!s.endsWith("]")) {
                return Optional.empty();
            }
            s = s.substring(1, s.length() - 1);
        }
        byte[] bytes;
        if (s.indexOf(':') >= 0) {
            bytes = parseIpv6(s);
        } else {
            bytes = bracketed ? null : parseIpv4(s);
        }
        if (bytes == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByAddress(bytes)); // 4 or 16 bytes: no lookup, cannot fail
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    private static byte[] parseIpv4(String s) {
        Matcher m = IPV4.matcher(s);
        if (!m.matches()) {
            return null;
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            int octet = Integer.parseInt(m.group(i + 1));
            if (octet > 255) {
                return null;
            }
            out[i] = (byte) octet;
        }
        return out;
    }

    private static byte[] parseIpv6(String text) {
        String s = text;
        String zone = null;
        int percent = s.indexOf('%');
        if (percent != -1) {
            zone = s.substring(percent + 1);
            s = s.substring(0, percent);
            if (!ZONE_ID.matcher(zone).matches()) {
                return null;
            }
        }
        if (!IPV6_CHARS.matcher(s).matches()) {
            return null;
        }
        if (s.contains(".")) { // an embedded IPv4 tail becomes the last two hex groups
            int lastColon = s.lastIndexOf(':');
            byte[] v4 = parseIpv4(s.substring(lastColon + 1));
            if (v4 == null) {
                return null;
            }
            s = s.substring(0, lastColon + 1) + Integer.toHexString(((v4[0] & 0xff) << 8) | (v4[1] & 0xff))
                    + ":" + Integer.toHexString(((v4[2] & 0xff) << 8) | (v4[3] & 0xff));
        }
        int[] groups = new int[8];
        int doubleColon = s.indexOf("::");
        if (doubleColon >= 0) {
            if (doubleColon != s.lastIndexOf("::")) {
                return null; // two "::", or ":::"
            }
            String[] left = splitGroups(s.substring(0, doubleColon));
            String[] right = splitGroups(s.substring(doubleColon + 2));
            if (left == null || right == null || left.length + right.length > 7) {
                return null;
            }
            for (int i = 0; i < left.length; i++) {
                groups[i] = Integer.parseInt(left[i], 16);
            }
            for (int i = 0; i < right.length; i++) {
                groups[8 - right.length + i] = Integer.parseInt(right[i], 16);
            }
        } else {
            String[] all = splitGroups(s);
            if (all == null || all.length != 8) {
                return null;
            }
            for (int i = 0; i < 8; i++) {
                groups[i] = Integer.parseInt(all[i], 16);
            }
        }
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) {
            out[2 * i] = (byte) (groups[i] >>> 8);
            out[2 * i + 1] = (byte) groups[i];
        }
        if (zone != null && !isLinkLocal(out)) {
            return null; // a zone id elsewhere means nothing we could use: refuse rather than guess
        }
        return out;
    }

    /** The 1–4 digit hex groups of a colon-separated run ({@code ""} is no group); null when one is bad. */
    private static String[] splitGroups(String run) {
        if (run.isEmpty()) {
            return new String[0];
        }
        String[] parts = run.split(":", -1);
        for (String p : parts) {
            if (!HEX_GROUP.matcher(p).matches()) {
                return null;
            }
        }
        return parts;
    }

    private static int group(byte[] b, int offset) {
        return ((b[offset] & 0xff) << 8) | (b[offset + 1] & 0xff);
    }

    private static boolean isIpv4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }

    private static boolean isLinkLocal(byte[] b) {
        return (b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80;
    }
}
