package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsTest {
    private static final String MASTER = "0123456789abcdef0123456789abcdef-test";

    @Test
    void shouldDeriveADifferentStableKeyPerPurpose() {
        Secrets s = Secrets.of(MASTER);

        assertThat(s.derive("voter")).isEqualTo(Secrets.of(MASTER).derive("voter"));
        assertThat(s.derive("voter")).isNotEqualTo(s.derive("cookie"));
        assertThat(s.derive("voter")).isNotEqualTo(Secrets.of(MASTER + "x").derive("voter"));
    }

    @Test
    void shouldHashVotersWithoutRevealingThem() {
        IdentityHasher hasher = new IdentityHasher(Secrets.of(MASTER));

        String hash = hasher.voter("user:alice");
        assertThat(hash).hasSize(64).matches("[0-9a-f]+").doesNotContain("alice");
        assertThat(hasher.voter("user:alice")).isEqualTo(hash);
        assertThat(hasher.voter("user:bob")).isNotEqualTo(hash);
    }

    @Test
    void shouldKeepTheDevSecretAcrossRestarts(@TempDir Path dir) throws Exception {
        Env dev = Env.of(Map.of());
        Secrets first = Secrets.from(dev, new Profile("dev"), dir);
        Secrets second = Secrets.from(dev, new Profile("dev"), dir);

        assertThat(first.derive("voter")).isEqualTo(second.derive("voter"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("secret")))).isEqualTo("rw-------");
    }

    @Test
    void eachDevDataDirectoryGetsItsOwnRandomSecretAndOtherProfilesMustSetOne(@TempDir Path dir) throws Exception {
        Secrets one = Secrets.from(Env.of(Map.of()), new Profile("dev"), dir.resolve("a"));
        Secrets other = Secrets.from(Env.of(Map.of()), new Profile("dev"), dir.resolve("b"));
        assertThat(one.derive("voter")).isNotEqualTo(other.derive("voter"));
        assertThat(Files.readString(dir.resolve("a/secret")).strip()).matches("[0-9a-f]{64}").isNotEqualTo("0".repeat(64));

        Env configured = Env.of(Map.of("TALLY_SECRET", "s".repeat(40)));
        assertThat(Secrets.from(configured, new Profile("prod"), dir.resolve("c")).derive("voter"))
                .isEqualTo(Secrets.of("s".repeat(40)).derive("voter"));
        assertThat(dir.resolve("c")).as("a configured secret writes no file").doesNotExist();
        assertThatThrownBy(() -> Secrets.from(Env.of(Map.of()), new Profile("prod"), dir.resolve("d")))
                .hasMessageContaining("TALLY_SECRET is required outside the dev profile (profile prod)");
    }

    @Test
    void shouldRefuseAShortSecretAndCompareInConstantTime() {
        assertThatThrownBy(() -> Secrets.of("short")).hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> Secrets.of("x".repeat(31))).hasMessageContaining("TALLY_SECRET must be at least 32 bytes");
        assertThat(Secrets.of("x".repeat(32)).derive("voter")).as("32 bytes are enough").hasSize(32);
        assertThat(Secrets.constantTimeEquals("abc", "abc")).isTrue();
        assertThat(Secrets.constantTimeEquals("abc", "abd")).isFalse();
        assertThat(Secrets.constantTimeEquals(null, "abd")).isFalse();
    }
}
