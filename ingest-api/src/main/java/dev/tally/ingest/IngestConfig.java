package dev.tally.ingest;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Configuration of the HTTP API.
 *
 * @param httpHost          {@code TALLY_HTTP_HOST} [dev: 127.0.0.1, otherwise 0.0.0.0]
 * @param httpPort          {@code TALLY_HTTP_PORT} [8080]
 * @param syncTimeout       {@code TALLY_SYNC_TIMEOUT} [2s]: how long a POST waits for its outcome before 202
 * @param replyPartition    {@code TALLY_REPLY_PARTITION} [0]: the tally.vote-outcomes partition this instance
 *                          reads; unique per API instance
 * @param trustUserHeader   {@code TALLY_TRUST_USER_HEADER} [dev: true]: honour {@code X-Tally-User}
 * @param votingEnabled     {@code TALLY_VOTING_ENABLED} [true]: false answers writes with 503, reads still work
 * @param catalogVersion    {@code TALLY_CATALOG_VERSION} [1]
 * @param requireCatalog    {@code TALLY_REQUIRE_CATALOG} [false]: refuse items the catalogue does not list
 * @param maxStreams        {@code TALLY_MAX_STREAMS} [10000]: live SSE streams per instance (each holds a socket)
 * @param maxInFlight       {@code TALLY_MAX_IN_FLIGHT} [2000]: commands waiting for Kafka or their answer, per
 *                          instance; past it writes get 503 with Retry-After (a hard cost ceiling)
 * @param allowedOrigins    {@code TALLY_ALLOWED_ORIGINS} [dev: the page's own origin]: browser origins allowed to
 *                          write; a request without {@code Origin} is allowed
 * @param adminToken        {@code TALLY_ADMIN_TOKEN} [dev: derived from the secret and printed]
 * @param projectorUrl      {@code TALLY_PROJECTOR_URL}: a count-projector's query address when it runs elsewhere
 * @param processorUrl      {@code TALLY_PROCESSOR_URL}: a vote-processor's query address when it runs elsewhere
 */
public record IngestConfig(String httpHost, int httpPort, Duration syncTimeout, int replyPartition,
                           boolean trustUserHeader, boolean votingEnabled, int catalogVersion, boolean requireCatalog,
                           int maxStreams, int maxInFlight, Set<String> allowedOrigins,
                           Optional<String> adminToken, Optional<String> projectorUrl, Optional<String> processorUrl) {
    public IngestConfig {
        if (syncTimeout.isNegative() || syncTimeout.isZero() || syncTimeout.toSeconds() > 30) {
            throw new Env.ConfigException("TALLY_SYNC_TIMEOUT must be between 1ms and 30s, was " + syncTimeout);
        }
        adminToken.ifPresent(t -> {
            if (t.length() < 16) {
                throw new Env.ConfigException("TALLY_ADMIN_TOKEN must be at least 16 characters");
            }
        });
    }

    private static Set<String> allowedOrigins(Env env, Profile profile) {
        var configured = env.get("TALLY_ALLOWED_ORIGINS");
        if (configured.isPresent()) {
            Set<String> origins = new LinkedHashSet<>();
            for (String o : configured.get().split(",")) {
                String origin = o.strip();
                if (!origin.matches("https?://[A-Za-z0-9.-]+(:\\d{1,5})?")) {
                    throw new Env.ConfigException("TALLY_ALLOWED_ORIGINS", configured.get(),
                            "comma-separated origins such as https://example.com or http://localhost:3000");
                }
                origins.add(origin);
            }
            return Set.copyOf(origins);
        }
        if (!profile.isDev()) {
            return Set.of();
        }
        String port = env.string("TALLY_HTTP_PORT", "8080");
        return Set.of("http://127.0.0.1:" + port, "http://localhost:" + port);
    }

    public static IngestConfig from(Env env, Profile profile) {
        Optional<String> adminToken = env.secret("TALLY_ADMIN_TOKEN");
        if (!profile.isDev() && adminToken.isEmpty()) {
            throw new Env.ConfigException("TALLY_ADMIN_TOKEN is required outside the dev profile");
        }
        return new IngestConfig(
                env.string("TALLY_HTTP_HOST", profile.isDev() ? "127.0.0.1" : "0.0.0.0"),
                env.integer("TALLY_HTTP_PORT", 8080, 0, 65535),
                env.duration("TALLY_SYNC_TIMEOUT", Duration.ofSeconds(2)),
                env.integer("TALLY_REPLY_PARTITION", 0, 0, 9_999),
                env.bool("TALLY_TRUST_USER_HEADER", profile.isDev()),
                env.bool("TALLY_VOTING_ENABLED", true),
                env.integer("TALLY_CATALOG_VERSION", 1, 1, Integer.MAX_VALUE),
                env.bool("TALLY_REQUIRE_CATALOG", false),
                env.integer("TALLY_MAX_STREAMS", 10_000, 0, 1_000_000),
                env.integer("TALLY_MAX_IN_FLIGHT", 2000, 1, 1_000_000),
                allowedOrigins(env, profile),
                adminToken, env.get("TALLY_PROJECTOR_URL"), env.get("TALLY_PROCESSOR_URL"));
    }
}
