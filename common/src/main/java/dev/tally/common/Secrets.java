package dev.tally.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.spec.SecretKeySpec;

/**
 * One master secret from which every purpose derives its own key (HMAC-SHA256 of
 * {@code tally:<purpose>:v1}), so a key leaked from one context cannot forge or link another.
 * The master secret itself is never used to MAC anything.
 */
public final class Secrets {
    private static final int MIN_SECRET_BYTES = 32;

    private final byte[] master;

    private Secrets(byte[] master) {
        if (master.length < MIN_SECRET_BYTES) {
            throw new Env.ConfigException("TALLY_SECRET must be at least " + MIN_SECRET_BYTES + " bytes");
        }
        this.master = master.clone();
    }

    public static Secrets of(String master) {
        return new Secrets(master.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@code TALLY_SECRET} when set; otherwise, in the dev profile only, a random secret kept in
     * {@code <dataDir>/secret} (mode 600) so that voter hashes stay stable across restarts.
     */
    public static Secrets from(Env env, Profile profile, Path dataDir) {
        var configured = env.secret("TALLY_SECRET");
        if (configured.isPresent()) {
            return of(configured.get());
        }
        if (!profile.isDev()) {
            throw new Env.ConfigException("TALLY_SECRET is required outside the dev profile (profile "
                    + profile.name() + "): set at least 32 random bytes");
        }
        return of(devSecret(dataDir.resolve("secret")));
    }

    private static String devSecret(Path file) {
        try {
            if (Files.exists(file)) {
                return Files.readString(file).strip();
            }
            Files.createDirectories(file.getParent());
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String secret = HexFormat.of().formatHex(random);
            Files.writeString(file, secret + "\n");
            try {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException ignored) {
                // not a POSIX file system: the file stays with the default permissions
            }
            return secret;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the dev secret " + file, e);
        }
    }

    /** The key for one purpose, e.g. {@code voter}, {@code network}, {@code cookie}, {@code admin}. */
    public byte[] derive(String purpose) {
        return hmac(master, "tally:" + purpose + ":v1");
    }

    /** One HMAC-SHA256; for many messages under one key, {@link KeyedMac}. */
    public static byte[] hmac(byte[] key, String message) {
        return KeyedMac.init(new SecretKeySpec(key, "HmacSHA256")).doFinal(message.getBytes(StandardCharsets.UTF_8));
    }

    /** Constant-time comparison of two strings (their UTF-8 bytes). */
    public static boolean constantTimeEquals(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
