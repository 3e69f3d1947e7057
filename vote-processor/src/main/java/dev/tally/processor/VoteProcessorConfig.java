package dev.tally.processor;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Namespace;
import java.time.Duration;

/**
 * @param namespace          {@code TALLY_NAMESPACE} [tally]: its topics, and its application id {@code <namespace>-vote-processor}
 * @param commitInterval     {@code TALLY_COMMIT_INTERVAL} [100ms: {@link KafkaSettings#commitInterval}]: transaction length; sets POST latency
 * @param deltaFlushInterval {@code TALLY_DELTA_FLUSH_INTERVAL} [100ms]: how often pending count deltas leave (an item's first change in an interval leaves at once)
 * @param idempotencyTtl     {@code TALLY_IDEMPOTENCY_TTL} [24h]: how long an Idempotency-Key is remembered
 * @param catalogVersion     {@code TALLY_CATALOG_VERSION} [1]
 * @param requireCatalog     {@code TALLY_REQUIRE_CATALOG} [false]: refuse items the catalogue does not list
 * @param voterLimits        per-voter limits
 * @param weighting          how much a young voter's vote weighs in the weighted score
 * @param reviewDelay        {@code TALLY_REVIEW_DELAY} [1h]: after it, the review job decides a held vote
 */
public record VoteProcessorConfig(Namespace namespace, Duration commitInterval, Duration deltaFlushInterval,
                                  Duration idempotencyTtl, int catalogVersion, boolean requireCatalog,
                                  VoterLimits voterLimits, Weighting weighting, Duration reviewDelay) {

    /**
     * Votes from accounts (or anonymous cookies) younger than {@code TALLY_NEW_VOTER_AGE} [24h] weigh
     * {@code TALLY_NEW_VOTER_WEIGHT} [0.1] in the weighted score rankings use; raw counts are
     * unaffected. A vote keeps the weight it was cast with, so retracting it later removes exactly that.
     */
    public record Weighting(Duration newVoterAge, double newVoterWeight) {
        public static final Weighting DEFAULT = new Weighting(Duration.ofHours(24), 0.1);

        public Weighting {
            if (newVoterWeight < 0 || newVoterWeight > 1) {
                throw new Env.ConfigException("TALLY_NEW_VOTER_WEIGHT must be between 0 and 1, was " + newVoterWeight);
            }
        }

        static Weighting from(Env env) {
            String weight = env.string("TALLY_NEW_VOTER_WEIGHT", "0.1");
            try {
                return new Weighting(env.duration("TALLY_NEW_VOTER_AGE", Duration.ofHours(24), Duration.ZERO, Duration.ofDays(365)), Double.parseDouble(weight));
            } catch (NumberFormatException e) {
                throw new Env.ConfigException("TALLY_NEW_VOTER_WEIGHT", weight, "a number between 0 and 1");
            }
        }

        /** The weight of a vote cast at {@code at} by a voter who exists since {@code since} (null: unknown). */
        double of(java.time.Instant since, java.time.Instant at) {
            return since != null && Duration.between(since, at).compareTo(newVoterAge) < 0 ? newVoterWeight : 1.0;
        }
    }

    /**
     * @param perWindow {@code TALLY_VOTER_LIMIT} [60]: counted votes per sliding window
     * @param window    {@code TALLY_VOTER_WINDOW} [60s]
     * @param perDay    {@code TALLY_VOTER_DAILY_LIMIT} [1000]: counted votes per UTC day
     */
    public record VoterLimits(int perWindow, Duration window, int perDay) {
        public static final VoterLimits NONE = new VoterLimits(Integer.MAX_VALUE, Duration.ofSeconds(1), Integer.MAX_VALUE);

        public VoterLimits {
            if (window.isZero() || window.isNegative()) {
                throw new Env.ConfigException("TALLY_VOTER_WINDOW must be positive");
            }
        }

        static VoterLimits from(Env env) {
            return new VoterLimits(env.integer("TALLY_VOTER_LIMIT", 60, 1, 1_000_000),
                    env.duration("TALLY_VOTER_WINDOW", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofDays(1)),
                    env.integer("TALLY_VOTER_DAILY_LIMIT", 1000, 1, 10_000_000));
        }
    }

    public VoteProcessorConfig {
        if (commitInterval.isZero() || commitInterval.isNegative()) {
            throw new Env.ConfigException("TALLY_COMMIT_INTERVAL must be positive");
        }
        if (deltaFlushInterval.isZero() || deltaFlushInterval.isNegative()) {
            throw new Env.ConfigException("TALLY_DELTA_FLUSH_INTERVAL must be positive");
        }
        if (idempotencyTtl.isZero() || idempotencyTtl.isNegative()) {
            throw new Env.ConfigException("TALLY_IDEMPOTENCY_TTL must be positive");
        }
    }

    public static VoteProcessorConfig from(Env env) {
        return new VoteProcessorConfig(KafkaSettings.namespace(env),
                KafkaSettings.commitInterval(env),
                env.duration("TALLY_DELTA_FLUSH_INTERVAL", Duration.ofMillis(100), Duration.ofMillis(1), Duration.ofMinutes(1)),
                env.duration("TALLY_IDEMPOTENCY_TTL", Duration.ofHours(24), Duration.ofSeconds(1), Duration.ofDays(30)),
                env.integer("TALLY_CATALOG_VERSION", 1, 1, Integer.MAX_VALUE),
                env.bool("TALLY_REQUIRE_CATALOG", false),
                VoterLimits.from(env), Weighting.from(env), env.duration("TALLY_REVIEW_DELAY", Duration.ofHours(1), Duration.ZERO, Duration.ofDays(30)));
    }

    public String applicationId() {
        return namespace.id("vote-processor");
    }
}
