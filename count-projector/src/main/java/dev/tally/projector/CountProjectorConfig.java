package dev.tally.projector;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import java.time.Duration;

/**
 * @param applicationId  {@code TALLY_PROJECTOR_APP_ID} [tally-count-projector]
 * @param commitInterval {@code TALLY_COMMIT_INTERVAL} [100ms: {@link KafkaSettings#commitInterval}]: how often views are flushed and published
 */
public record CountProjectorConfig(String applicationId, Duration commitInterval) {
    public static CountProjectorConfig from(Env env) {
        return new CountProjectorConfig(env.string("TALLY_PROJECTOR_APP_ID", "tally-count-projector"),
                KafkaSettings.commitInterval(env));
    }
}
