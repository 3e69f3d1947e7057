package dev.tally.launcher;

import dev.tally.common.DeadLetters;
import dev.tally.common.KafkaSettings;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code ./tally dead-letters list|replay}: what no service could read or process, and why; and, once the
 * cause is fixed, each record fed back to its source topic exactly once.
 */
@Command(name = "dead-letters", mixinStandardHelpOptions = true,
        header = "Lists the records no service could read, or replays them once.",
        description = "list: every record in tally.dead-letters with its source and the error that put it there"
                + " (replayed ones marked); replay: sends each one not replayed yet back to its source topic, once.")
final class DeadLettersCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "ACTION", description = "list or replay")
    String action;

    @Mixin
    KafkaOption kafkaOption;

    @Override
    public Integer call() throws InterruptedException {
        KafkaSettings kafka = kafkaOption.kafka();
        switch (action) {
            case "list" -> {
                List<DeadLetters.Letter> letters = DeadLetters.list(kafka);
                letters.forEach(l -> System.out.println(l.line()));
                long pending = letters.stream().filter(l -> !l.replayed()).count();
                System.out.println(letters.isEmpty() ? "no dead letters"
                        : letters.size() + " dead letters, " + pending + " not replayed");
            }
            case "replay" -> {
                List<DeadLetters.Letter> sent = DeadLetters.replay(kafka);
                sent.forEach(l -> System.out.println("replayed " + l.line()));
                System.out.println(sent.isEmpty() ? "nothing to replay" : "replayed " + sent.size() + " dead letters");
            }
            default -> throw new IllegalArgumentException("unknown action '" + action + "': list or replay");
        }
        return 0;
    }
}
