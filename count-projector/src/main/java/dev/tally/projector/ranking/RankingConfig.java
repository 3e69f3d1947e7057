package dev.tally.projector.ranking;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import java.nio.file.Path;
import java.time.Duration;

/**
 * @param interval  {@code TALLY_RANKING_INTERVAL} [dev: 10s, otherwise 5m]: how often every ranking is
 *                  regenerated; also how long a CDN or browser may cache it
 * @param outputDir where the static files go: {@code $TALLY_DATA_DIR/rankings}
 */
public record RankingConfig(Duration interval, Path outputDir) {
    /** An artifact older than this many intervals is stale: one or two missed runs do not empty the list. */
    public static final int STALE_AFTER_INTERVALS = 3;

    public RankingConfig {
        if (interval == null || interval.compareTo(Duration.ofSeconds(1)) < 0) {
            // Cache-Control counts whole seconds, and a zero interval would spin
            throw new Env.ConfigException("TALLY_RANKING_INTERVAL", interval == null ? "null" : interval.toMillis() + "ms",
                    "a duration of at least 1s");
        }
    }

    public static RankingConfig from(Env env) {
        Duration dflt = Profile.from(env).isDev() ? Duration.ofSeconds(10) : Duration.ofMinutes(5);
        return new RankingConfig(env.duration("TALLY_RANKING_INTERVAL", dflt),
                env.path("TALLY_DATA_DIR", "data").resolve("rankings"));
    }

    /** How old an artifact may be and still be served. */
    public Duration maxAge() {
        return interval.multipliedBy(STALE_AFTER_INTERVALS);
    }
}
