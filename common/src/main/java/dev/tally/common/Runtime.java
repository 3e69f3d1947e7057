package dev.tally.common;

import java.nio.file.Path;

/**
 * What every service process shares: the profile, where data lives, the secrets and Kafka.
 *
 * @param dataDir {@code TALLY_DATA_DIR} [./data]: broker log, Streams state, the dev secret
 */
public record Runtime(Profile profile, Path dataDir, Secrets secrets, KafkaSettings kafka) {
    public static Runtime from(Env env) {
        Profile profile = Profile.from(env);
        Path dataDir = env.path("TALLY_DATA_DIR", "data");
        return new Runtime(profile, dataDir, Secrets.from(env, profile, dataDir), KafkaSettings.from(env));
    }

    /** Local state of one Streams application. */
    public Path stateDir(String applicationId) {
        return dataDir.resolve("streams").resolve(applicationId);
    }
}
