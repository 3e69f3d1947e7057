package dev.tally.launcher;

import dev.tally.common.Env;
import dev.tally.common.KafkaAccess;
import dev.tally.common.KafkaSettings;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./tally acls --principal User:NAME}: the {@code kafka-acls} commands that grant a Tally node exactly what it
 * needs on a cluster with an authorizer ({@link KafkaAccess#required}), one per line, for the namespace and topic mode
 * of the environment ({@code TALLY_NAMESPACE}, {@code TALLY_CREATE_TOPICS}). It prints; it changes nothing.
 */
@Command(name = "acls", mixinStandardHelpOptions = true,
        header = "Prints the kafka-acls commands that grant a Tally node what it needs, and nothing more.",
        description = "Prefixed resources of the namespace only (TALLY_NAMESPACE): no wildcard, nothing on the cluster."
                + " Follows TALLY_CREATE_TOPICS: with false, no Create on the namespace's topics, DescribeConfigs instead.")
final class AclsCommand implements Callable<Integer> {
    @Option(names = "--principal", required = true, paramLabel = "User:NAME",
            description = "the principal the node authenticates as, e.g. User:tally")
    String principal;

    @Mixin
    AdminToolOptions tool;

    @Override
    public Integer call() {
        if (!principal.matches("[A-Za-z]+:.+")) {
            throw new Env.ConfigException("--principal is TYPE:NAME, e.g. User:tally, not " + principal);
        }
        Env env = Env.system();
        KafkaSettings kafka = KafkaSettings.from(env);
        System.out.println("# what a Tally node of namespace " + kafka.namespace() + " needs, as " + principal
                + (kafka.createTopics() ? "" : " (TALLY_CREATE_TOPICS=false)"));
        for (KafkaAccess.Grant g : KafkaAccess.required(kafka)) {
            System.out.println(g.command(principal, tool.cluster(env), tool.commandConfig));
        }
        return 0;
    }
}
