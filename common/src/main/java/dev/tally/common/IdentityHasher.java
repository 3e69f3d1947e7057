package dev.tally.common;

import java.util.HexFormat;

/**
 * Turns raw identities into the keyed hashes that are the only form stored anywhere. The key is derived
 * for this purpose alone; without the master secret a hash can be neither reversed nor recomputed.
 */
public final class IdentityHasher {
    private final byte[] voterKey;

    public IdentityHasher(Secrets secrets) {
        this.voterKey = secrets.derive("voter");
    }

    /** Hash of a voter: {@code user:<account id>} or {@code anon:<cookie voter id>}. 64 hex characters. */
    public String voter(String rawVoterId) {
        return HexFormat.of().formatHex(Secrets.hmac(voterKey, rawVoterId));
    }
}
