package dev.tally.launcher;

import java.util.Arrays;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.tools.AclCommand;
import org.apache.kafka.tools.TopicCommand;

/**
 * Kafka's own command-line tools, run in this JVM on a line as {@code ./tally acls} or {@code ./tally topics} prints
 * it ({@code kafka-acls.sh …}, {@code kafka-topics.sh …}): what an operator would run, not a re-implementation.
 */
final class KafkaTools {
    private KafkaTools() {}

    /** Runs the line's tool; a tool that exits non-zero fails the caller. */
    static void run(String line) {
        String[] words = line.split(" ");
        String[] args = Arrays.copyOfRange(words, 1, words.length);
        Exit.setExitProcedure((code, message) -> {
            if (code != 0) {
                throw new IllegalStateException(words[0] + " exited with " + code + ": " + message + "\n  " + line);
            }
        });
        try {
            switch (words[0]) {
                case "kafka-acls.sh" -> AclCommand.main(args);
                case "kafka-topics.sh" -> TopicCommand.main(args);
                default -> throw new IllegalArgumentException("not a Kafka tool: " + line);
            }
        } finally {
            Exit.resetExitProcedure();
        }
    }
}
