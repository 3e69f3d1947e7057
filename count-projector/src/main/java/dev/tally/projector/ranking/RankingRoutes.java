package dev.tally.projector.ranking;

import dev.tally.common.KeyedView;
import dev.tally.projector.rankings.RankingsRoute;
import dev.tally.schema.RankingArtifact;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/rankings/{item_type}/top}: the latest artifact of the type from {@code tally.rankings},
 * in the same JSON as the static file. An artifact that is missing, stale or malformed is never served;
 * the answer is then an empty {@code insufficient-data} list dated now, so a client shows "being
 * updated" (a missing leaderboard fails open, a wrong one is worse than none). Either answer
 * may be cached for one ranking interval.
 */
public final class RankingRoutes {
    public static final String PATH = "/v1/rankings/{itemType}/top";
    private static final Logger LOG = LoggerFactory.getLogger(RankingRoutes.class);

    private final Function<String, Optional<RankingArtifact>> latest;
    private final RankingValidator validator;
    private final String cacheControl;
    private final Clock clock;

    private RankingRoutes(Function<String, Optional<RankingArtifact>> latest, Duration maxAge, Duration cacheFor,
                          Clock clock) {
        this.latest = latest;
        this.validator = new RankingValidator(maxAge);
        this.cacheControl = "public, max-age=" + Math.max(0, cacheFor.toSeconds());
        this.clock = clock;
    }

    /**
     * Mounts the route.
     *
     * @param view   the compacted {@code tally.rankings}, keyed by item type
     * @param maxAge the oldest artifact served ({@link RankingConfig#maxAge()}: {@value RankingConfig#STALE_AFTER_INTERVALS}
     *               ranking intervals); answers are cacheable for one interval, a third of it
     */
    public static void mount(RoutesConfig routes, KeyedView<RankingArtifact> view, Duration maxAge) {
        mount(routes, view::get, maxAge, maxAge.dividedBy(RankingConfig.STALE_AFTER_INTERVALS), Clock.systemUTC());
    }

    /** The route over any source of artifacts and any clock: what the public overload and the tests use. */
    static void mount(RoutesConfig routes, Function<String, Optional<RankingArtifact>> latest, Duration maxAge,
                      Duration cacheFor, Clock clock) {
        RankingRoutes handler = new RankingRoutes(latest, maxAge, cacheFor, clock);
        routes.get(PATH, handler::top);
    }

    private void top(Context ctx) {
        String itemType = ctx.pathParam("itemType");
        if (!RankingValidator.ITEM_TYPE.matcher(itemType).matches()) {
            invalid(ctx, "item type must match " + RankingValidator.ITEM_TYPE);
            return;
        }
        Instant now = clock.instant();
        RankingArtifact artifact = latest.apply(itemType).filter(a -> servable(itemType, a, now))
                .orElseGet(() -> Rankings.insufficientData(itemType, now));
        ctx.header("Cache-Control", cacheControl);
        ctx.contentType("application/json").result(RankingJson.bytes(artifact));
    }

    private boolean servable(String itemType, RankingArtifact artifact, Instant now) {
        List<String> problems = new ArrayList<>(validator.problems(artifact, now));
        if (!itemType.equals(artifact.getItemType())) {
            problems.add("stored under '" + itemType + "' but of type '" + artifact.getItemType() + "'");
        }
        if (!problems.isEmpty()) {
            LOG.debug("not serving the ranking of '{}': {}", itemType, problems);
        }
        return problems.isEmpty();
    }

    private static void invalid(Context ctx, String detail) {
        RankingsRoute.problem(ctx, 400, "invalid-request", "Invalid request", detail);
    }
}
