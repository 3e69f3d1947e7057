package dev.tally.common;

import java.net.InetAddress;
import java.time.LocalDate;
import java.util.HexFormat;

/**
 * Turns raw identities into the keyed hashes that are the only form stored anywhere. Each kind has its own
 * derived key; without the master secret a hash can be neither reversed nor recomputed.
 */
public final class IdentityHasher {
    private final KeyedMac voterKey;
    private final KeyedMac networkKey;

    public IdentityHasher(Secrets secrets) {
        this.voterKey = new KeyedMac(secrets.derive("voter"));
        this.networkKey = new KeyedMac(secrets.derive("network"));
    }

    /** Hash of a voter: {@code user:<account id>} or {@code anon:<cookie voter id>}. 64 hex characters. */
    public String voter(String rawVoterId) {
        return HexFormat.of().formatHex(voterKey.of(rawVoterId));
    }

    /**
     * Hash of the caller's network neighbourhood on one UTC day: HMAC-SHA256 of {@code <utcDate>:<prefix>}
     * with the prefix from {@link NetworkPrefix#of} (/24 or /56). Truncated so it names a neighbourhood, not a
     * household; keyed so no address is recoverable; dated so the same network hashes differently tomorrow —
     * good for a 24-hour limit window, worthless as a long-term tracking key. 64 hex characters.
     */
    public String network(InetAddress address, LocalDate utcDate) {
        return HexFormat.of().formatHex(networkKey.of(utcDate + ":" + NetworkPrefix.of(address)));
    }
}
