package dev.tally.launcher;

import dev.tally.common.CompactedTopicView;
import dev.tally.common.KafkaSettings;
import dev.tally.common.ReactionRegistry;
import dev.tally.schema.ReactionType;
import dev.tally.schemas.Topics;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./tally reactions list|add|retire}: the reaction registry, straight on Kafka. */
@Command(name = "reactions", mixinStandardHelpOptions = true, description = "Lists, adds or retires reaction codes.")
final class ReactionsCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "ACTION", description = "list, add or retire")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "CODE", description = "reaction code, for add and retire")
    String code;

    @Option(names = "--label", description = "label shown to users (add)")
    String label;

    @Option(names = "--icon-url", description = "icon URL (add)")
    String iconUrl;

    @Mixin
    KafkaOption kafkaOption;

    @Override
    public Integer call() throws InterruptedException {
        KafkaSettings kafka = kafkaOption.kafka();
        try (var view = new CompactedTopicView<>(kafka, Topics.REACTION_TYPES)) {
            view.awaitCaughtUp();
            switch (action) {
                case "list" -> view.snapshot().values().stream().sorted(ReactionRegistry.DISPLAY_ORDER).forEach(t ->
                        System.out.printf("%-12s %-8s %-20s %s%n", t.getCode(), t.getActive() ? "active" : "retired",
                                t.getLabel(), t.getIconUrl() == null ? "" : t.getIconUrl()));
                case "add" -> {
                    requireCode();
                    try (var registry = new ReactionRegistry(kafka)) {
                        registry.put(code, label == null ? code : label, iconUrl);
                    }
                    System.out.println("added " + code);
                }
                case "retire" -> {
                    requireCode();
                    ReactionType current = view.get(code).orElseThrow(() ->
                            new IllegalArgumentException("'" + code + "' is not a reaction code"));
                    try (var registry = new ReactionRegistry(kafka)) {
                        registry.retire(current);
                    }
                    System.out.println("retired " + code + " (its counts stay)");
                }
                default -> throw new IllegalArgumentException("unknown action '" + action + "': list, add or retire");
            }
        }
        return 0;
    }

    private void requireCode() {
        if (code == null || !code.matches("[a-z][a-z0-9_]{0,31}")) {
            throw new IllegalArgumentException("a reaction code matching [a-z][a-z0-9_]{0,31} is required");
        }
    }
}
