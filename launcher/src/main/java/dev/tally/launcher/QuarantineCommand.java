package dev.tally.launcher;

import dev.tally.common.CompactedTopicView;
import dev.tally.common.KafkaSettings;
import dev.tally.common.QuarantineDecisions;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schemas.Topics;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code ./tally quarantine list|release ID|discard ID}: the review queue, straight on Kafka. */
@Command(name = "quarantine", mixinStandardHelpOptions = true,
        description = "Lists held votes, or releases (counts, exactly once) or discards one.")
final class QuarantineCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "ACTION", description = "list, release or discard")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ID", description = "the held command id, for release and discard")
    String id;

    @Mixin
    KafkaOption kafkaOption;

    @Override
    public Integer call() throws InterruptedException {
        KafkaSettings kafka = kafkaOption.kafka();
        try (var view = new CompactedTopicView<>(kafka, Topics.QUARANTINE)) {
            view.awaitCaughtUp();
            if (action.equals("list")) {
                List<QuarantineRecord> held = view.snapshot().values().stream()
                        .filter(r -> r.getStatus() == QuarantineStatus.HELD)
                        .sorted(Comparator.comparing(QuarantineRecord::getDecidedAt)).toList();
                if (held.isEmpty()) {
                    System.out.println("no held votes (" + kafka.topic(Topics.QUARANTINE).name() + " holds none waiting for a decision)");
                }
                held.forEach(r -> System.out.printf("%s  %s:%s  vote=%d reaction=%s  since %s  %s%n", r.getCommandId(),
                                r.getCommand().getItemType(), r.getCommand().getItemId(), r.getCommand().getVoteValue(),
                                r.getCommand().getReaction(), r.getDecidedAt(), r.getReason()));
                return 0;
            }
            QuarantineStatus decision = switch (action) {
                case "release" -> QuarantineStatus.RELEASED;
                case "discard" -> QuarantineStatus.DISCARDED;
                default -> throw new IllegalArgumentException("unknown action '" + action + "': list, release or discard");
            };
            QuarantineRecord held = view.get(id == null ? "" : id)
                    .filter(r -> r.getStatus() == QuarantineStatus.HELD)
                    .orElseThrow(() -> new IllegalArgumentException("no held vote '" + id + "'"));
            try (var decisions = new QuarantineDecisions(kafka)) {
                decisions.decide(held, decision, "operator");
            }
            System.out.println(action + "d " + id);
        }
        return 0;
    }
}
