package dev.tally.processor;

import dev.tally.common.Env;
import java.time.Duration;

/**
 * @param applicationId      {@code TALLY_PROCESSOR_APP_ID} [tally-vote-processor]
 * @param commitInterval     {@code TALLY_COMMIT_INTERVAL} [100ms]: transaction length; sets POST latency
 * @param deltaFlushInterval {@code TALLY_DELTA_FLUSH_INTERVAL} [100ms]: how often pending count deltas leave
 */
public record VoteProcessorConfig(String applicationId, Duration commitInterval, Duration deltaFlushInterval) {
    public VoteProcessorConfig {
        if (commitInterval.isZero() || commitInterval.isNegative()) {
            throw new Env.ConfigException("TALLY_COMMIT_INTERVAL must be positive");
        }
        if (deltaFlushInterval.isZero() || deltaFlushInterval.isNegative()) {
            throw new Env.ConfigException("TALLY_DELTA_FLUSH_INTERVAL must be positive");
        }
    }

    public static VoteProcessorConfig from(Env env) {
        return new VoteProcessorConfig(env.string("TALLY_PROCESSOR_APP_ID", "tally-vote-processor"),
                env.duration("TALLY_COMMIT_INTERVAL", Duration.ofMillis(100)),
                env.duration("TALLY_DELTA_FLUSH_INTERVAL", Duration.ofMillis(100)));
    }
}
