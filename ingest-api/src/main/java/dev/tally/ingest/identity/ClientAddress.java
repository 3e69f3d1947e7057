package dev.tally.ingest.identity;

import dev.tally.common.Env;
import dev.tally.common.NetworkPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who is on the other end, as far as we can prove it: the socket peer, unless that peer is one of our
 * {@link TrustedProxies}, in which case the rightmost {@code X-Forwarded-For} entry that is not itself a trusted
 * proxy. Only the entries our own proxies appended are believed; whatever a client wrote further left is never
 * read. An entry we must read that is not an IP address makes the header untrustworthy and the answer empty —
 * fail closed: the caller refuses the request (403) rather than guess, and does not fall back to the proxy's
 * address, which would lump every client behind it into one network bucket. A trusted peer that sends no
 * {@code X-Forwarded-For} at all is itself the client (a health check, or {@code curl} on the dev machine).
 */
public final class ClientAddress {
    /** More hops than any real chain; past it the header is junk. */
    static final int MAX_ENTRIES = 64;
    private static final Pattern PORT = Pattern.compile(":[0-9]{1,5}");

    private final TrustedProxies trusted;

    public ClientAddress(TrustedProxies trusted) {
        this.trusted = trusted;
    }

    /** {@code TALLY_TRUSTED_PROXIES} [dev: 127.0.0.1/32,::1/128; otherwise none]. */
    public static ClientAddress from(Env env, boolean devProfile) {
        return new ClientAddress(TrustedProxies.from(env, devProfile));
    }

    /**
     * @param socketPeer          the TCP peer as an IP literal (bracketed IPv6 accepted), e.g. the servlet's
     *                            {@code getRemoteAddr()}; never a name
     * @param xForwardedForHeaders every {@code X-Forwarded-For} header line in arrival order (none: empty list
     *                            or null); their entries are read as one comma-separated list
     * @return the client's address; empty when the peer is unusable or a trusted peer sent a header that cannot
     *         be read
     */
    public Optional<InetAddress> resolve(String socketPeer, List<String> xForwardedForHeaders) {
        Optional<InetAddress> peer = NetworkPrefix.parseLiteral(socketPeer);
        if (peer.isEmpty() || !trusted.contains(peer.get())) {
            return peer;
        }
        List<String> entries = entries(xForwardedForHeaders);
        if (entries == null) {
            return Optional.empty();
        }
        if (entries.isEmpty()) {
            return peer; // the trusted proxy (or local tool) is itself the client
        }
        InetAddress leftmost = null;
        for (int i = entries.size() - 1; i >= 0; i--) {
            Optional<InetAddress> hop = parseEntry(entries.get(i));
            if (hop.isEmpty()) {
                return Optional.empty();
            }
            if (!trusted.contains(hop.get())) {
                return hop;
            }
            leftmost = hop.get();
        }
        return Optional.of(leftmost); // every hop is trusted: the request began at the leftmost one
    }

    /** The stripped entries of every header line; null when there are too many to be real. */
    private static List<String> entries(List<String> headers) {
        List<String> out = new ArrayList<>();
        for (String header : headers == null ? List.<String>of() : headers) {
            if (header == null) {
                continue;
            }
            for (String entry : header.split(",", -1)) {
                out.add(entry.strip());
                if (out.size() > MAX_ENTRIES) {
                    return null;
                }
            }
        }
        return out;
    }

    /**
     * One entry: an IP literal, a bracketed IPv6 with an optional port ({@code [2001:db8::1]:443}), or an IPv4
     * with a port ({@code 203.0.113.9:5000}) as some load balancers write it. Anything else — {@code unknown},
     * an obfuscated identifier, a name, an empty entry — is empty.
     */
    static Optional<InetAddress> parseEntry(String entry) {
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            if (close == -1) {
                return Optional.empty();
            }
            String rest = entry.substring(close + 1);
            if (!rest.isEmpty() && !PORT.matcher(rest).matches()) {
                return Optional.empty();
            }
            return NetworkPrefix.parseLiteral(entry.substring(0, close + 1));
        }
        int colon = entry.indexOf(':');
        if (colon != -1 && colon == entry.lastIndexOf(':')) { // one colon: IPv6 has at least two, so an IPv4 and a port
            if (!PORT.matcher(entry.substring(colon)).matches()) {
                return Optional.empty();
            }
            return NetworkPrefix.parseLiteral(entry.substring(0, colon));
        }
        return NetworkPrefix.parseLiteral(entry);
    }

    @Override
    public String toString() {
        return "ClientAddress[" + trusted + "]";
    }
}
