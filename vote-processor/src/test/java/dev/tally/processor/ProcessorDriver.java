package dev.tally.processor;

import dev.tally.schemas.Namespace;
import dev.tally.common.ReactionRegistry;
import dev.tally.schema.CommandAction;
import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.ItemState;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoteOutcomeBatch;
import dev.tally.schemas.Topics;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/** The vote-processor topology in a {@link TopologyTestDriver}, with the default reactions registered. */
final class ProcessorDriver implements AutoCloseable {
    static final Duration FLUSH = Duration.ofMillis(100);
    static final Duration TTL = Duration.ofHours(24);
    static final VoteProcessorConfig CONFIG = new VoteProcessorConfig(Namespace.DEFAULT, Duration.ofMillis(100), FLUSH, TTL, 1, false,
            VoteProcessorConfig.VoterLimits.NONE,
            VoteProcessorConfig.Weighting.DEFAULT, Duration.ofHours(1));

    final TopologyTestDriver driver;
    final TestInputTopic<String, VoteCommandBatch> commands;
    final TestInputTopic<String, ReactionType> reactions;
    final TestInputTopic<String, ItemStatus> catalog;
    final TestOutputTopic<String, VoteEvent> events;
    private final Path stateDir;
    /** The partitions of {@code tally.count-deltas} the processor batches its deltas for. */
    static final int DELTA_PARTITIONS = 4;

    final TestOutputTopic<String, CountDeltaBatch> deltaBatches;
    final TestOutputTopic<String, VoteOutcomeBatch> outcomes;

    ProcessorDriver() {
        this(CONFIG);
    }

    ProcessorDriver(VoteProcessorConfig config) {
        this(config, newStateDir());
    }

    /** A driver whose state lives in {@code stateDir} (deleted when it closes). */
    ProcessorDriver(VoteProcessorConfig config, Path stateDir) {
        this.stateDir = stateDir;
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "vote-processor-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(VoteTopology.build(config, DELTA_PARTITIONS), props, Instant.parse("2026-11-30T00:00:00Z"));
        commands = driver.createInputTopic(Topics.VOTE_COMMANDS.name(), Topics.VOTE_COMMANDS.keySerde().serializer(),
                Topics.VOTE_COMMANDS.valueSerde().serializer());
        reactions = driver.createInputTopic(Topics.REACTION_TYPES.name(), Topics.REACTION_TYPES.keySerde().serializer(),
                Topics.REACTION_TYPES.valueSerde().serializer());
        catalog = driver.createInputTopic(Topics.ITEM_CATALOG.name(), Topics.ITEM_CATALOG.keySerde().serializer(),
                Topics.ITEM_CATALOG.valueSerde().serializer());
        events = driver.createOutputTopic(Topics.VOTE_EVENTS.name(), Topics.VOTE_EVENTS.keySerde().deserializer(),
                Topics.VOTE_EVENTS.valueSerde().deserializer());
        deltaBatches = driver.createOutputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().deserializer(),
                Topics.COUNT_DELTAS.valueSerde().deserializer());
        outcomes = driver.createOutputTopic(Topics.VOTE_OUTCOMES.name(), Topics.VOTE_OUTCOMES.keySerde().deserializer(),
                Topics.VOTE_OUTCOMES.valueSerde().deserializer());
        ReactionRegistry.DEFAULT_CODES.forEach(code -> registerReaction(code, true));
    }

    private static Path newStateDir() {
        try {
            return Files.createTempDirectory("vote-processor-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void registerReaction(String code, boolean active) {
        reactions.pipeInput(code, new ReactionType(code, code, null, active, Instant.EPOCH));
    }

    void setItem(String itemId, ItemState state) {
        catalog.pipeInput("post:" + itemId, new ItemStatus("post", itemId, state, Instant.EPOCH));
    }

    static VoteCommand.Builder command(String voter, String item) {
        return VoteCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                .setItemType("post").setItemId(item).setReplyPartition(0).setRequestHash("h")
                .setReceivedAt(Instant.parse("2026-11-30T00:00:00Z"));
    }

    static VoteCommand vote(String voter, String item, int value, VoteMode mode) {
        return command(voter, item).setAction(CommandAction.VOTE).setVoteValue(value).setMode(mode).build();
    }

    static VoteCommand reaction(String voter, String item, String code, VoteMode mode) {
        return command(voter, item).setAction(CommandAction.REACTION).setReaction(code).setMode(mode).build();
    }

    /**
     * Every delta forwarded since the last read, in order, out of their batches — each checked to be keyed by its
     * first item and to hold only items of the record's partition, at most one delta per item.
     */
    List<CountDelta> deltas() {
        List<CountDelta> all = new ArrayList<>();
        for (var record : deltaBatches.readKeyValuesToList()) {
            List<CountDelta> batch = record.value.getDeltas();
            assertThat(batch).as("a batch holds deltas").isNotEmpty();
            assertThat(record.key).as("keyed by its first item").isEqualTo(itemKey(batch.get(0)));
            int partition = Topics.partition(record.key, DELTA_PARTITIONS);
            assertThat(batch).as("every item of the record's partition").allMatch(d -> Topics.partition(itemKey(d), DELTA_PARTITIONS) == partition);
            assertThat(batch.stream().map(ProcessorDriver::itemKey).distinct().count()).as("one delta per item").isEqualTo(batch.size());
            all.addAll(batch);
        }
        return all;
    }

    static String itemKey(CountDelta d) {
        return Topics.itemKey(d.getItemType(), d.getItemId());
    }

    /** Sends the command (a batch of one) and returns the processor's answer to it. */
    VoteOutcome send(VoteCommand c) {
        List<VoteOutcome> answers = sendBatch(List.of(c));
        assertThat(answers).as("one answer to one command").hasSize(1);
        return answers.get(0);
    }

    /**
     * Sends the commands as one batch record and returns the answers of its one outcome record (commands
     * with no reply partition get none).
     */
    List<VoteOutcome> sendBatch(List<VoteCommand> batch) {
        commands.pipeInput(batch.get(0).getVoter(), new VoteCommandBatch(new ArrayList<>(batch)));
        List<VoteOutcomeBatch> records = outcomes.readValuesToList();
        assertThat(records).as("at most one outcome record per batch and API instance").hasSizeLessThanOrEqualTo(1);
        return records.isEmpty() ? List.of() : records.get(0).getOutcomes();
    }

    /** An up-vote ({@code set} mode) by {@code voter} on {@code item}, received at {@code at}, and its answer. */
    VoteOutcome voteAt(String voter, String item, Instant at) {
        VoteCommand c = vote(voter, item, 1, VoteMode.SET);
        c.setReceivedAt(at);
        return send(c);
    }

    /**
     * Flushes, then sums every delta forwarded since the last read (an item's first change leaves at once, the
     * rest at the flush): what the projector folds for one item, however the processor split it.
     */
    CountDelta flushedSum() {
        driver.advanceWallClockTime(FLUSH);
        List<CountDelta> all = deltas();
        assertThat(all).as("deltas since the last read").isNotEmpty();
        assertThat(all).extracting(CountDelta::getItemId).as("one item").containsOnly(all.get(0).getItemId());
        CountDelta sum = CountDelta.newBuilder(all.get(0)).setReactions(new java.util.HashMap<>(all.get(0).getReactions())).build();
        for (CountDelta d : all.subList(1, all.size())) {
            sum.setUpvotes(sum.getUpvotes() + d.getUpvotes());
            sum.setDownvotes(sum.getDownvotes() + d.getDownvotes());
            sum.setWeightedUp(sum.getWeightedUp() + d.getWeightedUp());
            sum.setWeightedDown(sum.getWeightedDown() + d.getWeightedDown());
            sum.setCommands(sum.getCommands() + d.getCommands());
            d.getReactions().forEach((code, n) -> sum.getReactions().merge(code, n, Long::sum));
            sum.setThroughOffset(Math.max(sum.getThroughOffset(), d.getThroughOffset()));
            sum.setLastReceivedAt(d.getLastReceivedAt());
        }
        return sum;
    }

    @Override
    public void close() {
        driver.close();
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
