package dev.tally.launcher;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import picocli.CommandLine.Option;

/**
 * The {@code --bootstrap} option of the CLI commands that talk to an existing Kafka (a picocli mixin):
 * the environment with {@code TALLY_BOOTSTRAP} overridden when it is given.
 */
final class KafkaOption {
    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
    String bootstrap;

    Env env() {
        return bootstrap == null ? Env.system() : Env.system().with("TALLY_BOOTSTRAP", bootstrap);
    }

    KafkaSettings kafka() {
        return KafkaSettings.from(env());
    }
}
