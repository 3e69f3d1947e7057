package dev.tally.fraud;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Namespace;
import java.time.Duration;

/**
 * @param namespace          {@code TALLY_NAMESPACE} [tally]: its topics, and its application id {@code <namespace>-fraud-detector}
 *                           (its own, so it scales and fails alone)
 * @param commitInterval     {@code TALLY_COMMIT_INTERVAL} [100ms: {@link KafkaSettings#commitInterval}]
 * @param clusterVoters      {@code TALLY_CLUSTER_VOTERS} [10]: more distinct voters than this from one network ...
 * @param clusterWindow      {@code TALLY_CLUSTER_WINDOW} [60s]: ... within this window → challenge the network
 * @param challengeFor       {@code TALLY_CHALLENGE_DURATION} [10m]: how long a network must pass challenges
 * @param networkDailyLimit  {@code TALLY_NETWORK_DAILY_LIMIT} [2000]: votes per network per UTC day
 * @param networkItemDailyLimit {@code TALLY_NETWORK_ITEM_DAILY_LIMIT} [10]: votes per network per item per UTC day
 * @param burstWindow        {@code TALLY_BURST_WINDOW} [5m]: the per-item window of burst detection ({@link ItemWatch},
 *                           which the count-projector applies)
 * @param burstFloor         {@code TALLY_BURST_FLOOR} [30]: a window above max(floor, mean + 3σ) is a burst
 */
public record FraudDetectorConfig(Namespace namespace, Duration commitInterval, int clusterVoters, Duration clusterWindow,
                                  Duration challengeFor, int networkDailyLimit, int networkItemDailyLimit,
                                  Duration burstWindow, int burstFloor) {
    public static FraudDetectorConfig from(Env env) {
        return new FraudDetectorConfig(KafkaSettings.namespace(env),
                KafkaSettings.commitInterval(env),
                env.integer("TALLY_CLUSTER_VOTERS", 10, 1, 1_000_000),
                env.duration("TALLY_CLUSTER_WINDOW", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofDays(1)),
                env.duration("TALLY_CHALLENGE_DURATION", Duration.ofMinutes(10), Duration.ofSeconds(1), Duration.ofDays(30)),
                env.integer("TALLY_NETWORK_DAILY_LIMIT", 2000, 1, 100_000_000),
                env.integer("TALLY_NETWORK_ITEM_DAILY_LIMIT", 10, 1, 1_000_000),
                env.duration("TALLY_BURST_WINDOW", Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofDays(1)),
                env.integer("TALLY_BURST_FLOOR", 30, 1, 1_000_000_000)); // so high it is off: ./tally bench's load
    }

    public String applicationId() {
        return namespace.id("fraud-detector");
    }
}
