package dev.tally.ingest.identity;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import dev.tally.common.Env;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What bearer JWTs are accepted. HS256 with a shared secret, RS256 with the public keys of a JWKS file, both,
 * or neither (then every JWT is refused). The JWKS file is read once, at start: a key rotation is a restart,
 * and a bad file stops the service with a message naming the variable instead of refusing every login later.
 *
 * @param hs256Secret {@code TALLY_JWT_SECRET} [unset]: at least 32 bytes, shared with the token issuer
 * @param rs256Keys   the RSA signature keys of {@code TALLY_JWKS_FILE} [unset] (public parts only)
 * @param clockSkew   {@code TALLY_JWT_CLOCK_SKEW} [30s, at most 5m]: tolerance on {@code exp} and {@code nbf}
 * @param issuer      {@code TALLY_JWT_ISSUER} [unset]: when set, {@code iss} must equal it
 * @param audience    {@code TALLY_JWT_AUDIENCE} [unset]: when set, {@code aud} must contain it
 */
public record JwtConfig(Optional<byte[]> hs256Secret, List<RSAKey> rs256Keys, Duration clockSkew,
                        Optional<String> issuer, Optional<String> audience) {
    static final int MIN_SECRET_BYTES = 32;
    static final int MIN_RSA_BITS = 2048;
    private static final Duration MAX_SKEW = Duration.ofMinutes(5);
    private static final long MAX_JWKS_BYTES = 1 << 20;

    public JwtConfig {
        Objects.requireNonNull(hs256Secret, "hs256Secret");
        Objects.requireNonNull(clockSkew, "clockSkew");
        Objects.requireNonNull(issuer, "issuer");
        Objects.requireNonNull(audience, "audience");
        hs256Secret = hs256Secret.map(byte[]::clone);
        hs256Secret.ifPresent(s -> {
            if (s.length < MIN_SECRET_BYTES) {
                throw new Env.ConfigException("TALLY_JWT_SECRET must be at least " + MIN_SECRET_BYTES
                        + " bytes (HS256 needs a 256-bit key)");
            }
        });
        rs256Keys = List.copyOf(rs256Keys);
        for (RSAKey key : rs256Keys) {
            if (key.isPrivate()) {
                throw new IllegalArgumentException("rs256Keys must be public keys");
            }
        }
        if (clockSkew.isNegative() || clockSkew.compareTo(MAX_SKEW) > 0) {
            throw new Env.ConfigException("TALLY_JWT_CLOCK_SKEW must be between 0s and 5m, was " + clockSkew);
        }
    }

    /** Neither secret nor keys: every JWT is refused. */
    public static JwtConfig none() {
        return new JwtConfig(Optional.empty(), List.of(), Duration.ofSeconds(30), Optional.empty(), Optional.empty());
    }

    public static JwtConfig from(Env env) {
        return new JwtConfig(
                env.secret("TALLY_JWT_SECRET").map(s -> s.getBytes(StandardCharsets.UTF_8)),
                env.get("TALLY_JWKS_FILE").map(JwtConfig::readJwks).orElse(List.of()),
                env.duration("TALLY_JWT_CLOCK_SKEW", Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(10)),
                env.get("TALLY_JWT_ISSUER"),
                env.get("TALLY_JWT_AUDIENCE"));
    }

    /** A copy: the secret stays inside this record. */
    @Override
    public Optional<byte[]> hs256Secret() {
        return hs256Secret.map(byte[]::clone);
    }

    /** Whether any JWT can be accepted at all. */
    public boolean acceptsJwts() {
        return hs256Secret.isPresent() || !rs256Keys.isEmpty();
    }

    /**
     * The RS256 keys of a JWKS file: RSA keys whose {@code use} is absent or {@code sig} and whose {@code alg}
     * is absent or {@code RS256}; others (EC, encryption keys) are skipped. Only public parts are kept, even if
     * the file holds private ones. Keys under 2048 bits are a config error.
     */
    static List<RSAKey> readJwks(String file) {
        Path path = Path.of(file);
        String text;
        try {
            if (Files.size(path) > MAX_JWKS_BYTES) {
                throw new Env.ConfigException("TALLY_JWKS_FILE=" + file + " is larger than 1 MiB");
            }
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Env.ConfigException("TALLY_JWKS_FILE=" + file + " cannot be read ("
                    + e.getClass().getSimpleName() + ")");
        }
        JWKSet set;
        try {
            set = JWKSet.parse(text);
        } catch (ParseException e) {
            throw new Env.ConfigException("TALLY_JWKS_FILE=" + file + " is not a JSON Web Key Set: " + e.getMessage());
        }
        List<RSAKey> keys = new ArrayList<>();
        for (JWK jwk : set.getKeys()) {
            if (!(jwk instanceof RSAKey rsa)) {
                continue;
            }
            boolean forSignatures = rsa.getKeyUse() == null || KeyUse.SIGNATURE.equals(rsa.getKeyUse());
            boolean forRs256 = rsa.getAlgorithm() == null || JWSAlgorithm.RS256.equals(rsa.getAlgorithm());
            if (!forSignatures || !forRs256) {
                continue;
            }
            if (rsa.size() < MIN_RSA_BITS) {
                throw new Env.ConfigException("TALLY_JWKS_FILE=" + file + " holds an RSA key of " + rsa.size()
                        + " bits (kid " + rsa.getKeyID() + "): at least " + MIN_RSA_BITS + " are required");
            }
            keys.add(rsa.toPublicJWK());
        }
        if (keys.isEmpty()) {
            throw new Env.ConfigException("TALLY_JWKS_FILE=" + file + " holds no RSA signature key usable for RS256");
        }
        return List.copyOf(keys);
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "JwtConfig[hs256=" + hs256Secret.isPresent() + ", rs256Keys=" + rs256Keys.size()
                + ", clockSkew=" + clockSkew + ", issuer=" + issuer + ", audience=" + audience + "]";
    }
}
