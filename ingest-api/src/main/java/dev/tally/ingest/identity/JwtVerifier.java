package dev.tally.ingest.identity;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import dev.tally.ingest.identity.InvalidJwtException.Reason;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Verifies {@code Authorization: Bearer <jwt>} tokens with nimbus-jose-jwt, deciding everything itself: the
 * algorithm comes from our configuration, never from the token. HS256 is checked only against
 * {@code TALLY_JWT_SECRET} and RS256 only against the JWKS keys, so an HS256 token "signed" with the RSA public
 * key (algorithm confusion) meets our secret and fails; {@code none}, JWE and every other algorithm are
 * refused before any key is touched. Then {@code exp} (required), {@code nbf}, {@code iss}/{@code aud} when
 * configured, and {@code sub}. Thread-safe; pure apart from the {@code now} it is given.
 */
public final class JwtVerifier {
    /** Far above any sane token; keeps a hostile header from costing a large parse. */
    static final int MAX_TOKEN_CHARS = 8192;
    private static final Pattern COMPACT = Pattern.compile("[A-Za-z0-9_.-]+");
    private static final Pattern SUBJECT = Pattern.compile("[\\x21-\\x7E]{1,128}");
    private static final Pattern BEARER = Pattern.compile("(?i)Bearer(?: +(.*))?");
    /** The latest instant {@code acct_created} may name: 9999-12-31T23:59:59Z. */
    private static final long MAX_EPOCH_SECONDS = 253_402_300_799L;

    private record KeyedVerifier(String keyId, JWSVerifier verifier) {
    }

    private final JwtConfig config;
    private final Optional<JWSVerifier> hs256;
    private final List<KeyedVerifier> rs256;
    private final String accepted;

    public JwtVerifier(JwtConfig config) {
        this.config = config;
        try {
            this.hs256 = config.hs256Secret().isPresent()
                    ? Optional.of(new MACVerifier(config.hs256Secret().get()))
                    : Optional.empty();
            List<KeyedVerifier> keys = new ArrayList<>();
            for (RSAKey key : config.rs256Keys()) {
                keys.add(new KeyedVerifier(key.getKeyID(), new RSASSAVerifier(key.toRSAPublicKey())));
            }
            this.rs256 = List.copyOf(keys);
        } catch (JOSEException e) {
            throw new IllegalArgumentException("unusable JWT key: " + e.getMessage(), e);
        }
        List<String> names = new ArrayList<>();
        hs256.ifPresent(v -> names.add("HS256"));
        if (!rs256.isEmpty()) {
            names.add("RS256");
        }
        this.accepted = String.join(" or ", names);
    }

    /** Whether any JWT can be accepted; when not, {@link #verify} refuses every token. */
    public boolean acceptsJwts() {
        return config.acceptsJwts();
    }

    /**
     * The token of an {@code Authorization} header whose scheme is {@code Bearer} (any case); empty when the
     * header is absent or another scheme. {@code "Bearer"} with nothing after it is an empty token, which
     * {@link #verify} refuses as malformed — the caller meant to authenticate and should hear that it failed.
     */
    public static Optional<String> bearerToken(String authorization) {
        if (authorization == null) {
            return Optional.empty();
        }
        var m = BEARER.matcher(authorization.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(m.group(1) == null ? "" : m.group(1).strip());
    }

    /** The account a token proves, or the specific reason it proves nothing. */
    public Account verify(String token, Instant now) throws InvalidJwtException {
        if (!config.acceptsJwts()) {
            throw new InvalidJwtException(Reason.NOT_ACCEPTED);
        }
        if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_CHARS || !COMPACT.matcher(token).matches()) {
            throw new InvalidJwtException(Reason.MALFORMED, "not a compact JWT");
        }
        JWT jwt;
        try {
            jwt = JWTParser.parse(token);
        } catch (ParseException e) {
            throw new InvalidJwtException(Reason.MALFORMED, "not a JWT");
        }
        if (!(jwt instanceof SignedJWT signed)) {
            throw new InvalidJwtException(Reason.WRONG_ALGORITHM, jwt instanceof EncryptedJWT
                    ? "encrypted tokens are not accepted, expected " + accepted
                    : "unsigned tokens are not accepted, expected " + accepted);
        }
        checkSignature(signed);
        JWTClaimsSet claims;
        try {
            claims = signed.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new InvalidJwtException(Reason.MALFORMED, "claims are not a valid JSON object");
        }
        return checkClaims(claims, now);
    }

    private void checkSignature(SignedJWT signed) throws InvalidJwtException {
        JWSHeader header = signed.getHeader();
        JWSAlgorithm alg = header.getAlgorithm();
        List<JWSVerifier> candidates;
        if (JWSAlgorithm.HS256.equals(alg) && hs256.isPresent()) {
            candidates = List.of(hs256.get());
        } else if (JWSAlgorithm.RS256.equals(alg) && !rs256.isEmpty()) {
            String kid = header.getKeyID();
            candidates = rs256.stream()
                    .filter(k -> kid == null || kid.equals(k.keyId()))
                    .map(KeyedVerifier::verifier)
                    .toList();
            if (candidates.isEmpty()) {
                throw new InvalidJwtException(Reason.BAD_SIGNATURE, "no key with the token's kid");
            }
        } else {
            throw new InvalidJwtException(Reason.WRONG_ALGORITHM, "expected " + accepted);
        }
        for (JWSVerifier verifier : candidates) {
            try {
                if (verifier.verify(header, signed.getSigningInput(), signed.getSignature())) {
                    return;
                }
            } catch (JOSEException e) {
                // e.g. a signature of the wrong length: not valid under this key
            }
        }
        throw new InvalidJwtException(Reason.BAD_SIGNATURE);
    }

    private Account checkClaims(JWTClaimsSet claims, Instant now) throws InvalidJwtException {
        Duration skew = config.clockSkew();
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            throw new InvalidJwtException(Reason.MALFORMED, "exp claim is required");
        }
        if (!now.isBefore(exp.toInstant().plus(skew))) {
            throw new InvalidJwtException(Reason.EXPIRED);
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && now.plus(skew).isBefore(nbf.toInstant())) {
            throw new InvalidJwtException(Reason.NOT_YET_VALID);
        }
        if (config.issuer().isPresent() && !config.issuer().get().equals(claims.getIssuer())) {
            throw new InvalidJwtException(Reason.WRONG_ISSUER, "expected " + config.issuer().get());
        }
        if (config.audience().isPresent()
                && (claims.getAudience() == null || !claims.getAudience().contains(config.audience().get()))) {
            throw new InvalidJwtException(Reason.WRONG_AUDIENCE, "expected " + config.audience().get());
        }
        String subject = claims.getSubject();
        if (subject == null) {
            throw new InvalidJwtException(Reason.MALFORMED, "sub claim is required");
        }
        if (!isValidSubject(subject)) {
            throw new InvalidJwtException(Reason.MALFORMED, "sub must be 1 to 128 visible ASCII characters");
        }
        return new Account(subject, accountCreated(claims.getClaim("acct_created")));
    }

    private static Optional<Instant> accountCreated(Object claim) throws InvalidJwtException {
        if (claim == null) {
            return Optional.empty();
        }
        if (!(claim instanceof Number n) || !Double.isFinite(n.doubleValue())) {
            throw new InvalidJwtException(Reason.MALFORMED, "acct_created must be a number of epoch seconds");
        }
        double seconds = Math.floor(n.doubleValue());
        if (seconds < 0 || seconds > MAX_EPOCH_SECONDS) {
            throw new InvalidJwtException(Reason.MALFORMED, "acct_created is out of range");
        }
        return Optional.of(Instant.ofEpochSecond((long) seconds));
    }

    static boolean isValidSubject(String subject) {
        return subject != null && SUBJECT.matcher(subject).matches();
    }

    @Override
    public String toString() {
        return "JwtVerifier[" + (accepted.isEmpty() ? "refuses every JWT" : accepted) + "]";
    }
}
