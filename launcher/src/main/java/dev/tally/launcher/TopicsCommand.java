package dev.tally.launcher;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicAdmin;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.NewTopic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./tally topics}: the topics a deployment needs ({@link TopicAdmin#specs}), for operators who create topics
 * themselves ({@code TALLY_CREATE_TOPICS=false}): as {@code kafka-topics} commands, or as Strimzi {@code KafkaTopic}
 * resources for a GitOps repository. It prints; it changes nothing.
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
        header = "Prints the topics Tally needs, as kafka-topics commands or Strimzi KafkaTopic resources.",
        description = "With the namespace, partitions, replication and settings of the environment (TALLY_NAMESPACE,"
                + " TALLY_PARTITIONS, TALLY_REPLICATION_FACTOR). Kafka Streams creates its own internal topics (prefixed"
                + " <namespace>-) either way.")
final class TopicsCommand implements Callable<Integer> {
    @Option(names = "--format", defaultValue = "commands", paramLabel = "commands|strimzi",
            description = "kafka-topics commands, or Strimzi KafkaTopic resources [${DEFAULT-VALUE}]")
    String format;

    @Mixin
    AdminToolOptions tool;

    @Option(names = "--cluster", paramLabel = "NAME", defaultValue = "my-cluster",
            description = "the Strimzi Kafka cluster the resources belong to (label strimzi.io/cluster) [${DEFAULT-VALUE}]")
    String cluster;

    @Override
    public Integer call() {
        Env env = Env.system();
        KafkaSettings kafka = KafkaSettings.from(env);
        switch (format) {
            case "commands" -> {
                for (NewTopic t : TopicAdmin.specs(kafka)) {
                    StringBuilder line = new StringBuilder("kafka-topics.sh --bootstrap-server " + tool.cluster(env)
                            + " --command-config " + tool.commandConfig + " --create --if-not-exists --topic " + t.name()
                            + " --partitions " + t.numPartitions() + " --replication-factor " + t.replicationFactor());
                    t.configs().forEach((k, v) -> line.append(" --config ").append(k).append('=').append(v));
                    System.out.println(line);
                }
            }
            case "strimzi" -> {
                for (NewTopic t : TopicAdmin.specs(kafka)) {
                    System.out.print(strimzi(t, cluster));
                }
            }
            default -> throw new Env.ConfigException("--format is commands or strimzi, not " + format);
        }
        return 0;
    }

    /** One {@code KafkaTopic} document; its name is the topic's, made a valid Kubernetes name. */
    static String strimzi(NewTopic t, String cluster) {
        StringBuilder yaml = new StringBuilder("---\napiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata:\n")
                .append("  name: ").append(t.name().replace('.', '-').replace('_', '-')).append('\n')
                .append("  labels:\n    strimzi.io/cluster: ").append(cluster).append('\n')
                .append("spec:\n  topicName: ").append(t.name()).append('\n')
                .append("  partitions: ").append(t.numPartitions()).append('\n')
                .append("  replicas: ").append(t.replicationFactor()).append('\n')
                .append("  config:\n");
        for (Map.Entry<String, String> c : t.configs().entrySet()) {
            yaml.append("    ").append(c.getKey()).append(": \"").append(c.getValue()).append("\"\n");
        }
        return yaml.toString();
    }
}
