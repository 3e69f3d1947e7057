package dev.tally.common;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under one derived key, without a provider lookup and key schedule per message: each thread
 * keeps its own initialised {@link Mac} ({@code Mac} is not thread-safe, and {@code doFinal} resets it for
 * the next message). Same bytes as {@link Secrets#hmac}.
 */
public final class KeyedMac {
    private final ThreadLocal<Mac> macs;

    public KeyedMac(byte[] key) {
        SecretKeySpec spec = new SecretKeySpec(key.clone(), "HmacSHA256");
        this.macs = ThreadLocal.withInitial(() -> init(spec));
        init(spec); // fail at construction, not on the first request
    }

    public byte[] of(String message) {
        return macs.get().doFinal(message.getBytes(StandardCharsets.UTF_8));
    }

    static Mac init(SecretKeySpec spec) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(spec);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }
}
