package dev.tally.projector.rankings;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.query.Scores;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.schemas.Namespace;
import java.time.Duration;

/**
 * @param namespace      {@code TALLY_NAMESPACE} [tally]: the event log read, and the applications' ids
 *                       {@code <namespace>-rankings-<policy>-v<version>}
 * @param policy         {@code TALLY_RANKING_POLICY} [trusted]: the policy whose lists this node keeps and answers
 *                       with when a request names none ({@code all}, {@code trusted}, {@code signed-in})
 * @param z              {@code TALLY_RANKING_Z} [1.96]: the z of {@code sort=best}'s Wilson bound (1.96 for 95 %
 *                       confidence, 1.28 for 80 %)
 * @param commitInterval {@code TALLY_COMMIT_INTERVAL}, but at least {@link #MIN_COMMIT_INTERVAL}: a list moves when its
 *                       event is processed, not when the transaction commits, so a longer interval costs the lists no
 *                       freshness and saves each item's repeated writes to its changelog (decisions/0018)
 * @param enabled        {@code TALLY_RANKED_LISTS} [true]: whether the node keeps live ranked lists at all
 */
public record RankingsConfig(Namespace namespace, RankingPolicy policy, double z, Duration commitInterval, boolean enabled) {
    public static final Duration MIN_COMMIT_INTERVAL = Duration.ofSeconds(1);

    public static RankingsConfig from(Env env) {
        RankingPolicy policy;
        String name = env.string("TALLY_RANKING_POLICY", RankingPolicy.TRUSTED.wireName());
        try {
            policy = RankingPolicy.parse(name);
        } catch (IllegalArgumentException e) {
            throw new Env.ConfigException("TALLY_RANKING_POLICY", name, "one of all, trusted, signed-in");
        }
        return new RankingsConfig(KafkaSettings.namespace(env), policy,
                env.decimal("TALLY_RANKING_Z", Scores.Z95, 0.1, 10),
                Duration.ofMillis(Math.max(MIN_COMMIT_INTERVAL.toMillis(), KafkaSettings.commitInterval(env).toMillis())),
                env.bool("TALLY_RANKED_LISTS", true));
    }

    /** The Streams application that keeps {@code policy}'s lists: a new policy version is a new application, a replay. */
    public String applicationId(RankingPolicy policy) {
        return namespace.id("rankings-" + policy.wireName() + "-v" + policy.version());
    }

    public RankingsConfig withPolicy(RankingPolicy other) {
        return new RankingsConfig(namespace, other, z, commitInterval, enabled);
    }
}
