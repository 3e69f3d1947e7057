package dev.tally.projector;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.schemas.Namespace;
import dev.tally.fraud.FraudDetectorConfig;
import dev.tally.fraud.ItemWatch;
import java.time.Duration;

/**
 * @param namespace      {@code TALLY_NAMESPACE} [tally]: its topics, and its application id {@code <namespace>-count-projector}
 * @param commitInterval {@code TALLY_COMMIT_INTERVAL} [100ms: {@link KafkaSettings#commitInterval}]: how often views are flushed and published
 * @param bursts         the burst rule, which the projector applies to each item beside its counts, with the fraud
 *                       settings {@code TALLY_BURST_WINDOW} and {@code TALLY_BURST_FLOOR} ({@link FraudDetectorConfig})
 */
public record CountProjectorConfig(Namespace namespace, Duration commitInterval, ItemWatch bursts) {
    public static CountProjectorConfig from(Env env) {
        return new CountProjectorConfig(KafkaSettings.namespace(env),
                KafkaSettings.commitInterval(env), ItemWatch.of(FraudDetectorConfig.from(env)));
    }

    public String applicationId() {
        return namespace.id("count-projector");
    }
}
