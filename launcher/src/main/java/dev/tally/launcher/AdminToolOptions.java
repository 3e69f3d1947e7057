package dev.tally.launcher;

import dev.tally.common.Env;
import picocli.CommandLine.Option;

/**
 * The options of the commands that print commands for an administrator's Kafka tools ({@code acls}, {@code topics}):
 * the cluster and the administrator's {@code --command-config} file to write into them (a picocli mixin).
 */
final class AdminToolOptions {
    @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
            description = "the cluster, for the commands [TALLY_BOOTSTRAP, else HOST:PORT]")
    String bootstrap;

    @Option(names = "--command-config", paramLabel = "FILE", defaultValue = "admin.properties",
            description = "the properties file of an administrator allowed to do it [${DEFAULT-VALUE}]")
    String commandConfig;

    /** {@code --bootstrap}, else {@code TALLY_BOOTSTRAP}, else a placeholder to fill in. */
    String cluster(Env env) {
        return bootstrap != null ? bootstrap : env.get("TALLY_BOOTSTRAP").orElse("HOST:PORT");
    }
}
