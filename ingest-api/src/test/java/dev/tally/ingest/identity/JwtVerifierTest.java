package dev.tally.ingest.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.nimbusds.jose.EncryptionMethod;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWEAlgorithm;
import com.nimbusds.jose.JWEHeader;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.DirectEncrypter;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.tally.common.Env;
import dev.tally.ingest.identity.InvalidJwtException.Reason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JwtVerifierTest {
    private static final String SECRET = "an-hs256-secret-of-at-least-32-bytes-long";
    private static final Instant NOW = Instant.parse("2026-03-14T12:00:00Z");

    @TempDir
    static Path dir;
    private static RSAKey rsa;
    private static RSAKey otherRsa;
    private static Path jwksFile;

    @BeforeAll
    static void keys() throws Exception {
        rsa = new RSAKeyGenerator(2048).keyID("k1").keyUse(KeyUse.SIGNATURE).generate();
        otherRsa = new RSAKeyGenerator(2048).keyID("k1").generate(); // same kid, another key: an impostor
        RSAKey second = new RSAKeyGenerator(2048).keyID("k2").generate();
        jwksFile = write("jwks.json", new JWKSet(List.of(rsa.toPublicJWK(), second.toPublicJWK())).toString());
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    private static Path write(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private static JwtVerifier verifier(String... keyValues) {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            env.put(keyValues[i], keyValues[i + 1]);
        }
        return new JwtVerifier(JwtConfig.from(Env.of(env)));
    }

    private static JwtVerifier hsOnly() {
        return verifier("TALLY_JWT_SECRET", SECRET);
    }

    private static JwtVerifier rsOnly() {
        return verifier("TALLY_JWKS_FILE", jwksFile.toString());
    }

    private static JwtVerifier both() {
        return verifier("TALLY_JWT_SECRET", SECRET, "TALLY_JWKS_FILE", jwksFile.toString());
    }

    private static JWTClaimsSet.Builder claims() {
        return new JWTClaimsSet.Builder()
                .subject("alice")
                .issueTime(Date.from(NOW.minusSeconds(60)))
                .expirationTime(Date.from(NOW.plusSeconds(300)));
    }

    private static String sign(JWSAlgorithm alg, JWSSigner signer, JWTClaimsSet claims, String kid) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).type(JOSEObjectType.JWT).keyID(kid).build(), claims);
        jwt.sign(signer);
        return jwt.serialize();
    }

    private static String hs256(JWTClaimsSet claims) throws Exception {
        return sign(JWSAlgorithm.HS256, new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)), claims, null);
    }

    private static String rs256(RSAKey key, JWTClaimsSet claims) throws Exception {
        return sign(JWSAlgorithm.RS256, new RSASSASigner(key), claims, key.getKeyID());
    }

    /** Refused for the given reason, with a message that holds no part of the token. */
    private static InvalidJwtException refused(JwtVerifier verifier, String token, Reason reason) {
        InvalidJwtException e = catchThrowableOfType(InvalidJwtException.class, () -> verifier.verify(token, NOW));
        assertThat(e).as("token should be refused").isNotNull();
        assertThat(e.reason()).isEqualTo(reason);
        assertThat(e.getMessage()).startsWith(reason.text());
        if (token != null) {
            for (String part : token.split("\\.")) {
                if (part.length() > 8) {
                    assertThat(e.getMessage()).doesNotContain(part);
                }
            }
        }
        return e;
    }

    // ---- valid tokens --------------------------------------------------------------------------------------

    @Test
    void shouldAcceptAValidHs256Token() throws Exception {
        Account account = hsOnly().verify(hs256(claims().build()), NOW);

        assertThat(account).isEqualTo(new Account("alice", Optional.empty()));
    }

    @Test
    void shouldAcceptAValidRs256TokenFromTheJwksFileWithOrWithoutKid() throws Exception {
        assertThat(rsOnly().verify(rs256(rsa, claims().build()), NOW).subject()).isEqualTo("alice");
        assertThat(rsOnly().verify(sign(JWSAlgorithm.RS256, new RSASSASigner(rsa), claims().build(), null), NOW)
                .subject()).isEqualTo("alice");
        assertThat(both().verify(rs256(rsa, claims().build()), NOW).subject()).isEqualTo("alice");
        assertThat(both().verify(hs256(claims().build()), NOW).subject()).isEqualTo("alice");
    }

    @Test
    void shouldParseAcctCreated() throws Exception {
        Account account = hsOnly().verify(hs256(claims().claim("acct_created", 1_700_000_000L).build()), NOW);
        Account fractional = hsOnly().verify(hs256(claims().claim("acct_created", 1_700_000_000.75).build()), NOW);

        assertThat(account.accountCreated()).contains(Instant.ofEpochSecond(1_700_000_000L));
        assertThat(fractional.accountCreated()).contains(Instant.ofEpochSecond(1_700_000_000L));
        refused(hsOnly(), hs256(claims().claim("acct_created", "yesterday").build()), Reason.MALFORMED);
        refused(hsOnly(), hs256(claims().claim("acct_created", -5).build()), Reason.MALFORMED);
        refused(hsOnly(), hs256(claims().claim("acct_created", 1e15).build()), Reason.MALFORMED);
    }

    // ---- keys and signatures -------------------------------------------------------------------------------

    @Test
    void shouldRefuseATokenSignedWithAnotherKey() throws Exception {
        String otherSecret = sign(JWSAlgorithm.HS256,
                new MACSigner("another-secret-of-at-least-32-bytes-long!".getBytes(StandardCharsets.UTF_8)),
                claims().build(), null);

        refused(hsOnly(), otherSecret, Reason.BAD_SIGNATURE);
        refused(rsOnly(), rs256(otherRsa, claims().build()), Reason.BAD_SIGNATURE);
        refused(rsOnly(), sign(JWSAlgorithm.RS256, new RSASSASigner(otherRsa), claims().build(), null),
                Reason.BAD_SIGNATURE);
        refused(rsOnly(), sign(JWSAlgorithm.RS256, new RSASSASigner(rsa), claims().build(), "unknown-kid"),
                Reason.BAD_SIGNATURE);
    }

    @Test
    void shouldNeverTrustAKeyTheTokenBringsAlong() throws Exception {
        SignedJWT embedded = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("k1")
                .jwk(otherRsa.toPublicJWK()).build(), claims().build());
        embedded.sign(new RSASSASigner(otherRsa));

        refused(rsOnly(), embedded.serialize(), Reason.BAD_SIGNATURE);
        refused(both(), embedded.serialize(), Reason.BAD_SIGNATURE);
    }

    @Test
    void shouldRefuseATamperedPayloadOrSignature() throws Exception {
        String[] good = hs256(claims().build()).split("\\.");
        String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(
                claims().subject("mallory").build().toString().getBytes(StandardCharsets.UTF_8));

        refused(hsOnly(), good[0] + "." + forged + "." + good[2], Reason.BAD_SIGNATURE);
        refused(hsOnly(), good[0] + "." + good[1] + "." + good[2].substring(0, 20), Reason.BAD_SIGNATURE);
        InvalidJwtException unsigned = catchThrowableOfType(InvalidJwtException.class,
                () -> hsOnly().verify(good[0] + "." + good[1] + ".", NOW));
        assertThat(unsigned).isNotNull();
        assertThat(unsigned.reason()).isIn(Reason.BAD_SIGNATURE, Reason.MALFORMED);
    }

    // ---- algorithms ----------------------------------------------------------------------------------------

    @Test
    void shouldRefuseOtherAlgorithms() throws Exception {
        byte[] long48 = (SECRET + SECRET).getBytes(StandardCharsets.UTF_8);
        String hs384 = sign(JWSAlgorithm.HS384, new MACSigner(long48), claims().build(), null);
        String none = new PlainJWT(claims().build()).serialize();
        EncryptedJWT jwe = new EncryptedJWT(new JWEHeader(JWEAlgorithm.DIR, EncryptionMethod.A128GCM), claims().build());
        jwe.encrypt(new DirectEncrypter(new byte[16]));

        refused(hsOnly(), hs384, Reason.WRONG_ALGORITHM);
        refused(both(), hs384, Reason.WRONG_ALGORITHM);
        refused(both(), none, Reason.WRONG_ALGORITHM);
        refused(hsOnly(), none, Reason.WRONG_ALGORITHM);
        refused(both(), jwe.serialize(), Reason.WRONG_ALGORITHM);
        refused(hsOnly(), rs256(rsa, claims().build()), Reason.WRONG_ALGORITHM);
        refused(rsOnly(), hs256(claims().build()), Reason.WRONG_ALGORITHM);
        refused(rsOnly(), sign(JWSAlgorithm.PS256, new RSASSASigner(rsa), claims().build(), "k1"), Reason.WRONG_ALGORITHM);
    }

    @Test
    void shouldRefuseAnHs256TokenSignedWithTheRsaPublicKey() throws Exception {
        RSAPublicKey publicKey = rsa.toRSAPublicKey();
        byte[] der = publicKey.getEncoded();
        byte[] pem = ("-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(der)
                + "\n-----END PUBLIC KEY-----\n").getBytes(StandardCharsets.UTF_8);
        byte[] jwkJson = rsa.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8);

        for (byte[] confusedKey : List.of(der, pem, jwkJson)) {
            String token = sign(JWSAlgorithm.HS256, new MACSigner(confusedKey), claims().build(), "k1");
            refused(rsOnly(), token, Reason.WRONG_ALGORITHM);
            refused(both(), token, Reason.BAD_SIGNATURE);
        }
    }

    // ---- time ----------------------------------------------------------------------------------------------

    @Test
    void shouldRequireAndCheckExpiryWithClockSkew() throws Exception {
        refused(hsOnly(), hs256(claims().expirationTime(Date.from(NOW.minusSeconds(31))).build()), Reason.EXPIRED);
        refused(hsOnly(), hs256(claims().expirationTime(Date.from(NOW.minusSeconds(3600))).build()), Reason.EXPIRED);
        assertThat(hsOnly().verify(hs256(claims().expirationTime(Date.from(NOW.minusSeconds(10))).build()), NOW))
                .isNotNull(); // within the 30s skew
        assertThat(refused(hsOnly(), hs256(claims().expirationTime(null).build()), Reason.MALFORMED))
                .hasMessageContaining("exp");

        JwtVerifier strict = verifier("TALLY_JWT_SECRET", SECRET, "TALLY_JWT_CLOCK_SKEW", "0s");
        refused(strict, hs256(claims().expirationTime(Date.from(NOW.minusSeconds(1))).build()), Reason.EXPIRED);
        refused(strict, hs256(claims().expirationTime(Date.from(NOW)).build()), Reason.EXPIRED);
    }

    @Test
    void shouldCheckNotBefore() throws Exception {
        refused(hsOnly(), hs256(claims().notBeforeTime(Date.from(NOW.plusSeconds(60))).build()), Reason.NOT_YET_VALID);
        assertThat(hsOnly().verify(hs256(claims().notBeforeTime(Date.from(NOW.plusSeconds(10))).build()), NOW))
                .isNotNull(); // within the skew
        assertThat(hsOnly().verify(hs256(claims().notBeforeTime(Date.from(NOW.minusSeconds(10))).build()), NOW))
                .isNotNull();
    }

    // ---- issuer, audience, subject -------------------------------------------------------------------------

    @Test
    void shouldCheckIssuerAndAudienceOnlyWhenConfigured() throws Exception {
        JwtVerifier checking = verifier("TALLY_JWT_SECRET", SECRET,
                "TALLY_JWT_ISSUER", "https://id.example", "TALLY_JWT_AUDIENCE", "tally");

        assertThat(checking.verify(hs256(claims().issuer("https://id.example").audience("tally").build()), NOW))
                .isNotNull();
        assertThat(checking.verify(hs256(claims().issuer("https://id.example").audience(List.of("other", "tally"))
                .build()), NOW)).isNotNull();
        refused(checking, hs256(claims().issuer("https://evil.example").audience("tally").build()), Reason.WRONG_ISSUER);
        refused(checking, hs256(claims().audience("tally").build()), Reason.WRONG_ISSUER);
        refused(checking, hs256(claims().issuer("https://id.example").audience("other").build()), Reason.WRONG_AUDIENCE);
        refused(checking, hs256(claims().issuer("https://id.example").build()), Reason.WRONG_AUDIENCE);

        assertThat(hsOnly().verify(hs256(claims().issuer("anyone").audience("anything").build()), NOW)).isNotNull();
    }

    @Test
    void shouldRequireAVisibleAsciiSubject() throws Exception {
        assertThat(refused(hsOnly(), hs256(claims().subject(null).build()), Reason.MALFORMED))
                .hasMessageContaining("sub");
        refused(hsOnly(), hs256(claims().subject("").build()), Reason.MALFORMED);
        refused(hsOnly(), hs256(claims().subject("has space").build()), Reason.MALFORMED);
        refused(hsOnly(), hs256(claims().subject("é").build()), Reason.MALFORMED);
        refused(hsOnly(), hs256(claims().subject("x".repeat(129)).build()), Reason.MALFORMED);
        assertThat(hsOnly().verify(hs256(claims().subject("x".repeat(128)).build()), NOW).subject()).hasSize(128);
    }

    // ---- malformed input, nothing configured ---------------------------------------------------------------

    @Test
    void shouldSayWhatItAcceptsAndWhyAnUnsignedOrEncryptedTokenIsRefused() throws Exception {
        assertThat(hsOnly().acceptsJwts()).isTrue();
        assertThat(verifier().acceptsJwts()).isFalse();
        assertThat(both()).hasToString("JwtVerifier[HS256 or RS256]");
        assertThat(hsOnly()).hasToString("JwtVerifier[HS256]");
        assertThat(rsOnly()).hasToString("JwtVerifier[RS256]");
        assertThat(verifier()).hasToString("JwtVerifier[refuses every JWT]");
        String none = new PlainJWT(claims().build()).serialize();
        assertThat(refused(both(), none, Reason.WRONG_ALGORITHM).getMessage())
                .endsWith("unsigned tokens are not accepted, expected HS256 or RS256");
        EncryptedJWT jwe = new EncryptedJWT(new JWEHeader(JWEAlgorithm.DIR, EncryptionMethod.A128GCM), claims().build());
        jwe.encrypt(new DirectEncrypter(new byte[16]));
        assertThat(refused(hsOnly(), jwe.serialize(), Reason.WRONG_ALGORITHM).getMessage())
                .endsWith("encrypted tokens are not accepted, expected HS256");
    }

    @Test
    void shouldTakeATokenOfTheLongestLengthAndAccountsCreatedAtTheEdgesOfTime() throws Exception {
        String padded = hs256(claims().claim("pad", "").build());
        int room = (JwtVerifier.MAX_TOKEN_CHARS - padded.length()) * 3 / 4;
        String longest = "";
        for (int n = room - 8; n <= room + 8 && longest.length() != JwtVerifier.MAX_TOKEN_CHARS; n++) {
            for (String extra : List.of("", "k")) {
                String token = hs256(claims().claim("pad", "p".repeat(n)).claim("x", extra).build());
                if (token.length() == JwtVerifier.MAX_TOKEN_CHARS) {
                    longest = token;
                }
            }
        }
        assertThat(longest.length()).isEqualTo(JwtVerifier.MAX_TOKEN_CHARS);
        assertThat(hsOnly().verify(longest, NOW).subject()).isEqualTo("alice");

        assertThat(hsOnly().verify(hs256(claims().claim("acct_created", 0).build()), NOW).accountCreated()).contains(Instant.EPOCH);
        assertThat(hsOnly().verify(hs256(claims().claim("acct_created", 253_402_300_799L).build()), NOW).accountCreated())
                .contains(Instant.parse("9999-12-31T23:59:59Z"));
        refused(hsOnly(), hs256(claims().claim("acct_created", 253_402_300_800L).build()), Reason.MALFORMED);
        refused(hsOnly(), hs256(claims().claim("acct_created", -0.5).build()), Reason.MALFORMED);
    }

    @Test
    void shouldTakeSettingsAtTheirLimitsAndOnlyKeysMeantForRs256Signatures() throws Exception {
        assertThat(verifier("TALLY_JWT_SECRET", "s".repeat(JwtConfig.MIN_SECRET_BYTES)).acceptsJwts()).isTrue();
        assertThatThrownBy(() -> verifier("TALLY_JWT_SECRET", "s".repeat(JwtConfig.MIN_SECRET_BYTES - 1)))
                .hasMessageContaining("TALLY_JWT_SECRET must be at least 32 bytes");
        assertThat(verifier("TALLY_JWT_SECRET", SECRET, "TALLY_JWT_CLOCK_SKEW", "5m").acceptsJwts()).isTrue();
        assertThatThrownBy(() -> verifier("TALLY_JWT_SECRET", SECRET, "TALLY_JWT_CLOCK_SKEW", "301s"))
                .hasMessageContaining("TALLY_JWT_CLOCK_SKEW must be between 0s and 5m");

        RSAKey forEncryption = new RSAKeyGenerator(2048).keyID("e1").keyUse(KeyUse.ENCRYPTION).generate();
        RSAKey forPs256 = new RSAKeyGenerator(2048).keyID("p1").algorithm(JWSAlgorithm.PS256).generate();
        RSAKey forRs256 = new RSAKeyGenerator(2048).keyID("r1").algorithm(JWSAlgorithm.RS256).keyUse(KeyUse.SIGNATURE).generate();
        Path mixed = write("mixed.json", new JWKSet(List.of(forEncryption.toPublicJWK(), forPs256.toPublicJWK(),
                forRs256.toPublicJWK())).toString());
        JwtVerifier verifier = verifier("TALLY_JWKS_FILE", mixed.toString());
        assertThat(verifier.verify(rs256(forRs256, claims().build()), NOW).subject()).isEqualTo("alice");
        refused(verifier, rs256(forEncryption, claims().build()), Reason.BAD_SIGNATURE);
        refused(verifier, rs256(forPs256, claims().build()), Reason.BAD_SIGNATURE);

        String set = new JWKSet(List.of(forRs256.toPublicJWK())).toString();
        Path largest = write("largest.json", set + " ".repeat((1 << 20) - set.length()));
        assertThat(Files.size(largest)).isEqualTo(1 << 20);
        assertThat(verifier("TALLY_JWKS_FILE", largest.toString()).acceptsJwts()).isTrue();
        Path over = write("over.json", set + " ".repeat((1 << 20) - set.length() + 1));
        assertThatThrownBy(() -> verifier("TALLY_JWKS_FILE", over.toString())).hasMessageContaining("is larger than 1 MiB");
    }

    @Test
    void shouldRefuseMalformedTokens() {
        for (String token : List.of("", "abc", "a.b.c", "a.b", "eyJhbGciOiJIUzI1NiJ9.e30", "not a token",
                "eyJ.eyJ.sig=", "x".repeat(JwtVerifier.MAX_TOKEN_CHARS + 1))) {
            refused(hsOnly(), token, Reason.MALFORMED);
        }
        refused(hsOnly(), null, Reason.MALFORMED);
    }

    @Test
    void shouldRefuseEveryJwtWhenNothingIsConfigured() throws Exception {
        JwtVerifier none = verifier();

        assertThat(none.acceptsJwts()).isFalse();
        assertThat(refused(none, hs256(claims().build()), Reason.NOT_ACCEPTED)).hasMessage("JWTs are not accepted here");
        refused(none, "garbage", Reason.NOT_ACCEPTED);
        assertThat(new JwtVerifier(JwtConfig.none()).acceptsJwts()).isFalse();
    }

    @Test
    void shouldReadTheBearerScheme() {
        assertThat(JwtVerifier.bearerToken(null)).isEmpty();
        assertThat(JwtVerifier.bearerToken("Basic YWxhZGRpbjpvcGVuc2VzYW1l")).isEmpty();
        assertThat(JwtVerifier.bearerToken("Bearerabc")).isEmpty();
        assertThat(JwtVerifier.bearerToken("Bearer abc.def.ghi")).contains("abc.def.ghi");
        assertThat(JwtVerifier.bearerToken("bearer  abc.def.ghi ")).contains("abc.def.ghi");
        assertThat(JwtVerifier.bearerToken("Bearer")).contains("");
        assertThat(JwtVerifier.bearerToken("Bearer ")).contains("");
    }

    // ---- configuration -------------------------------------------------------------------------------------

    @Test
    void shouldNameTheVariableOfABadConfiguration() throws Exception {
        KeyPairGenerator weak = KeyPairGenerator.getInstance("RSA");
        weak.initialize(1024);
        JWK weakKey = new RSAKey.Builder((RSAPublicKey) weak.generateKeyPair().getPublic()).keyID("weak").build();
        JWK ecOnly = new ECKeyGenerator(Curve.P_256).keyID("ec").generate().toPublicJWK();
        Path weakFile = write("weak.json", new JWKSet(weakKey).toString());
        Path ecFile = write("ec.json", new JWKSet(ecOnly).toString());
        Path badFile = write("bad.json", "{not json");

        assertThatThrownBy(() -> verifier("TALLY_JWT_SECRET", "too-short"))
                .hasMessageContaining("TALLY_JWT_SECRET").hasMessageNotContaining("too-short");
        assertThatThrownBy(() -> verifier("TALLY_JWKS_FILE", dir.resolve("missing.json").toString()))
                .hasMessageContaining("TALLY_JWKS_FILE").hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> verifier("TALLY_JWKS_FILE", badFile.toString()))
                .hasMessageContaining("TALLY_JWKS_FILE").hasMessageContaining("not a JSON Web Key Set");
        assertThatThrownBy(() -> verifier("TALLY_JWKS_FILE", weakFile.toString()))
                .hasMessageContaining("TALLY_JWKS_FILE").hasMessageContaining("2048");
        assertThatThrownBy(() -> verifier("TALLY_JWKS_FILE", ecFile.toString()))
                .hasMessageContaining("TALLY_JWKS_FILE").hasMessageContaining("no RSA signature key");
        assertThatThrownBy(() -> verifier("TALLY_JWT_SECRET", SECRET, "TALLY_JWT_CLOCK_SKEW", "10m"))
                .hasMessageContaining("TALLY_JWT_CLOCK_SKEW");
    }

    @Test
    void shouldKeepOnlyPublicKeysAndNeverPrintTheSecret() throws Exception {
        Path withPrivate = write("private.json", new JWKSet(List.of(rsa, otherRsa.toPublicJWK())).toString(false));
        JwtConfig config = JwtConfig.from(Env.of(Map.of("TALLY_JWKS_FILE", withPrivate.toString(),
                "TALLY_JWT_SECRET", SECRET)));

        assertThat(config.rs256Keys()).hasSize(2).noneMatch(JWK::isPrivate);
        assertThat(config.toString()).doesNotContain(SECRET).contains("hs256=true");
        assertThat(new JwtVerifier(config).verify(rs256(rsa, claims().build()), NOW).subject()).isEqualTo("alice");
    }
}
