package dev.tally.fraud;

import dev.tally.common.Env;
import java.time.Duration;

/**
 * @param applicationId  {@code TALLY_FRAUD_APP_ID} [tally-fraud-detector]: its own, so it scales and fails alone
 * @param commitInterval {@code TALLY_COMMIT_INTERVAL} [100ms]
 */
public record FraudDetectorConfig(String applicationId, Duration commitInterval) {
    public static FraudDetectorConfig from(Env env) {
        return new FraudDetectorConfig(env.string("TALLY_FRAUD_APP_ID", "tally-fraud-detector"),
                env.duration("TALLY_COMMIT_INTERVAL", Duration.ofMillis(100)));
    }
}
