package dev.tally.launcher;

import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicScan;
import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoterItemState;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./tally void --voter HASH}: retracts every vote and reaction one voter holds, as ordinary
 * commands through the normal path, so the log records each retraction as an event and every count is
 * corrected exactly once. The voter's current state is folded from {@code tally.vote-events}.
 */
@Command(name = "void", mixinStandardHelpOptions = true,
        description = "Retracts all of one voter's votes and reactions (as ordinary events).")
final class VoidCommand implements Callable<Integer> {

    @Option(names = "--voter", required = true, paramLabel = "HASH", description = "the voter's hash (64 hex characters)")
    String voter;

    @Mixin
    KafkaOption kafkaOption;

    @Override
    public Integer call() throws Exception {
        if (!voter.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("--voter takes the voter's hash: 64 lowercase hex characters");
        }
        KafkaSettings kafka = kafkaOption.kafka();
        Map<String, VoterItemState> held = currentState(kafka);
        List<VoteCommand> retractions = new ArrayList<>();
        int votes = 0;
        int reactions = 0;
        for (var e : held.entrySet()) {
            ItemKey item = ItemKey.parse(e.getKey());
            if (e.getValue().getVote() != 0) {
                retractions.add(retraction(item, CommandAction.VOTE));
                votes++;
            }
            if (e.getValue().getReaction() != null) {
                retractions.add(retraction(item, CommandAction.REACTION));
                reactions++;
            }
        }
        if (!retractions.isEmpty()) { // one batch: one voter's commands all go to the voter's partition
            try (var producer = new KafkaProducer<>(kafka.producerProps("tally-void", Duration.ofSeconds(15)),
                    Topics.VOTE_COMMANDS.keySerde().serializer(), Topics.VOTE_COMMANDS.valueSerde().serializer())) {
                producer.send(new ProducerRecord<>(kafka.topic(Topics.VOTE_COMMANDS).name(), voter, new VoteCommandBatch(retractions)))
                        .get(15, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
        System.out.printf("retracted %d votes and %d reactions of voter %s%n", votes, reactions, voter);
        return 0;
    }

    private VoteCommand retraction(ItemKey item, CommandAction action) {
        return VoteCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                .setItemType(item.type()).setItemId(item.id()).setAction(action).setVoteValue(0).setReaction(null)
                .setMode(VoteMode.SET).setRequestHash("void").setModeration(true).setReceivedAt(Instant.now()).build();
    }

    /** The voter's latest state per item, from the event log. */
    private Map<String, VoterItemState> currentState(KafkaSettings kafka) {
        Map<String, VoterItemState> state = new HashMap<>();
        TopicScan.readAll(kafka, Topics.VOTE_EVENTS, r -> {
            VoteEvent e = r.value();
            if (e != null && voter.equals(e.getVoter())) {
                state.put(Topics.itemKey(e.getItemType(), e.getItemId()), e.getAfter());
            }
        });
        return state;
    }
}
