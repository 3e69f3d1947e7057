package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The refusals a request meets before its body is parsed: origin, media type and size. */
class RequestLimitsTest {
    private static final Set<String> ALLOWED = Set.of("https://app.example.com");

    @Test
    void aWriteFromAnAllowedOriginPassesAndIsAnsweredForTheBrowser() {
        assertThat(RequestLimits.writeFromOrigin("POST", "https://app.example.com", ALLOWED)).isTrue();
        assertThat(RequestLimits.writeFromOrigin("DELETE", "https://app.example.com", ALLOWED)).isTrue();
    }

    @Test
    void aWriteFromAnotherOriginIsRefusedNamingIt() {
        assertThatThrownBy(() -> RequestLimits.writeFromOrigin("POST", "https://evil.example", ALLOWED))
                .isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.status()).isEqualTo(403))
                .hasMessageContaining("origin 'https://evil.example' may not write here (TALLY_ALLOWED_ORIGINS)");
        assertThatThrownBy(() -> RequestLimits.writeFromOrigin("PUT", "https://app.example.com.evil", ALLOWED))
                .isInstanceOf(ApiProblem.class);
    }

    @Test
    void readsAndRequestsWithoutAnOriginAreNotCrossSiteWrites() {
        assertThat(RequestLimits.writeFromOrigin("GET", "https://evil.example", ALLOWED)).isFalse();
        assertThat(RequestLimits.writeFromOrigin("HEAD", "https://evil.example", ALLOWED)).isFalse();
        assertThat(RequestLimits.writeFromOrigin("POST", null, ALLOWED)).isFalse();
        assertThat(RequestLimits.writeFromOrigin("GET", "https://app.example.com", ALLOWED)).isFalse();
    }

    @ParameterizedTest(name = "{0} is JSON")
    @ValueSource(strings = {"application/json", "Application/JSON", "application/json; charset=utf-8", "application/json ;charset=UTF-8"})
    void jsonWithOrWithoutParametersIsTaken(String type) {
        assertThatCode(() -> RequestLimits.requireJson(type)).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(strings = {"text/plain", "application/jsonp", "application/x-www-form-urlencoded", "multipart/form-data", "", "json"})
    void anythingElseIsRefusedAsAnUnsupportedMediaType(String type) {
        assertThatThrownBy(() -> RequestLimits.requireJson(type))
                .isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.status()).isEqualTo(415))
                .hasMessageContaining("Content-Type must be application/json");
        assertThatThrownBy(() -> RequestLimits.requireJson((String) null)).isInstanceOf(ApiProblem.class);
    }

    @Test
    void aBodyOfTheLimitPassesAndOneByteMoreIsRefused() {
        assertThatCode(() -> RequestLimits.checkLength(RequestLimits.MAX_BODY_BYTES)).doesNotThrowAnyException();
        assertThatCode(() -> RequestLimits.checkLength(-1)).as("no Content-Length").doesNotThrowAnyException();
        assertThatThrownBy(() -> RequestLimits.checkLength(RequestLimits.MAX_BODY_BYTES + 1))
                .isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.status()).isEqualTo(413))
                .hasMessageContaining("the body must be at most 4096 bytes");
    }
}
