package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CommandAction;
import dev.tally.schema.CountDelta;
import dev.tally.schema.ItemState;
import dev.tally.schema.Outcome;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 10,000 random commands — few voters and items, both modes, votes and reactions, retired and unknown
 * codes, locked and deleted items, idempotent retries and key reuse — through the topology and through a
 * tiny in-memory model written independently of {@link VoteRules}: every answer, the final counts and
 * every voter's state must agree.
 */
class ReferenceModelTest {
    private static final List<String> VOTERS = List.of("v0", "v1", "v2", "v3", "v4");
    private static final List<String> ITEMS = List.of("a", "b", "c", "locked", "gone");
    private static final List<String> CODES = List.of("like", "love", "wow", "sad", "meh", "retired");

    /** What the model expects a command to answer. */
    record Answer(OutcomeStatus status, Outcome outcome, String error, int vote, String reaction) {
        static Answer of(VoteOutcome o) {
            return new Answer(o.getStatus(), o.getOutcome(), o.getError(), o.getAfter().getVote(), o.getAfter().getReaction());
        }
    }

    /** The model: plain maps and the rules as the contract states them. */
    static final class Model {
        final Map<String, int[]> votes = new HashMap<>();        // voter|item -> {vote}
        final Map<String, String> reactions = new HashMap<>();   // voter|item -> code
        final Map<String, Long> counts = new TreeMap<>();        // item/up, item/down, item/r/code
        final Map<String, String[]> keys = new HashMap<>();      // voter|key -> {hash}
        final Map<String, Answer> answers = new HashMap<>();     // voter|key -> first answer

        Answer apply(VoteCommand c) {
            String slot = c.getVoter() + "|" + c.getItemId();
            if (c.getIdempotencyKey() != null) {
                String k = c.getVoter() + "|" + c.getIdempotencyKey();
                if (keys.containsKey(k)) {
                    if (keys.get(k)[0].equals(c.getRequestHash())) {
                        return answers.get(k);
                    }
                    return rejected("idempotency-conflict", slot);
                }
                Answer a = decide(c, slot);
                keys.put(k, new String[] {c.getRequestHash()});
                answers.put(k, a);
                return a;
            }
            return decide(c, slot);
        }

        private Answer decide(VoteCommand c, String slot) {
            if (c.getItemId().equals("locked")) {
                return rejected("item-locked", slot);
            }
            if (c.getItemId().equals("gone")) {
                return rejected("item-not-found", slot);
            }
            boolean toggle = c.getMode() == VoteMode.TOGGLE;
            int vote = votes.getOrDefault(slot, new int[1])[0];
            String reaction = reactions.get(slot);
            if (c.getAction() == CommandAction.VOTE) {
                int want = c.getVoteValue();
                Outcome o;
                int after;
                if (want == 0) {
                    o = vote == 0 ? Outcome.UNCHANGED : Outcome.RETRACTED;
                    after = 0;
                } else if (want == vote) {
                    o = toggle ? Outcome.RETRACTED : Outcome.UNCHANGED;
                    after = toggle ? 0 : vote;
                } else {
                    o = vote == 0 ? Outcome.ACCEPTED : Outcome.CHANGED;
                    after = want;
                }
                count(c.getItemId() + "/up", (after == 1 ? 1 : 0) - (vote == 1 ? 1 : 0));
                count(c.getItemId() + "/down", (after == -1 ? 1 : 0) - (vote == -1 ? 1 : 0));
                votes.put(slot, new int[] {after});
                return new Answer(OutcomeStatus.APPLIED, o, null, after, reaction);
            }
            String want = c.getReaction();
            if (want != null && want.equals("meh")) {
                return rejected("unknown-reaction", slot);
            }
            if (want != null && want.equals("retired")) {
                return rejected("retired-reaction", slot);
            }
            Outcome o;
            String after;
            if (want == null) {
                o = reaction == null ? Outcome.UNCHANGED : Outcome.RETRACTED;
                after = null;
            } else if (want.equals(reaction)) {
                o = toggle ? Outcome.RETRACTED : Outcome.UNCHANGED;
                after = toggle ? null : reaction;
            } else {
                o = reaction == null ? Outcome.ACCEPTED : Outcome.CHANGED;
                after = want;
            }
            if (!Objects.equals(reaction, after)) {
                if (reaction != null) {
                    count(c.getItemId() + "/r/" + reaction, -1);
                }
                if (after != null) {
                    count(c.getItemId() + "/r/" + after, 1);
                }
            }
            reactions.put(slot, after);
            return new Answer(OutcomeStatus.APPLIED, o, null, vote, after);
        }

        private Answer rejected(String error, String slot) {
            return new Answer(OutcomeStatus.REJECTED, null, error, votes.getOrDefault(slot, new int[1])[0], reactions.get(slot));
        }

        private void count(String key, long delta) {
            counts.merge(key, delta, Long::sum);
            counts.remove(key, 0L);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 20261130})
    void topologyAndModelAgreeOnEveryAnswerCountAndState(long seed) {
        Random random = new Random(seed);
        Model model = new Model();
        Map<String, Long> projected = new TreeMap<>();
        try (ProcessorDriver p = new ProcessorDriver()) {
            p.registerReaction("retired", false);
            p.setItem("locked", ItemState.LOCKED);
            p.setItem("gone", ItemState.DELETED);
            Map<String, VoteCommand> lastKeyed = new HashMap<>();
            List<VoteCommand> batch = new ArrayList<>();
            int batchSize = 1;
            for (int i = 0; i < 10_000; i++) {
                VoteCommand c;
                String voter = VOTERS.get(random.nextInt(VOTERS.size()));
                if (random.nextInt(10) < 2 && lastKeyed.containsKey(voter)) {
                    c = VoteCommand.newBuilder(lastKeyed.get(voter)).setCommandId("retry-" + i).build(); // a client retry
                } else {
                    c = randomCommand(random, voter, i);
                    if (c.getIdempotencyKey() != null) {
                        lastKeyed.put(voter, c);
                    }
                }
                batch.add(c);
                if (batch.size() < batchSize && i < 9_999) {
                    continue;
                }
                // batches of 1 to 8 commands, as the API packs them: resolved in order, one answer each
                List<VoteOutcome> answers = p.sendBatch(batch);
                assertThat(answers).hasSize(batch.size());
                for (int k = 0; k < batch.size(); k++) {
                    assertThat(Answer.of(answers.get(k))).as("command %d of a batch of %d: %s", k, batch.size(), batch.get(k))
                            .isEqualTo(model.apply(batch.get(k)));
                }
                batch.clear();
                batchSize = 1 + random.nextInt(8);
                if (random.nextInt(20) == 0) {
                    drain(p, projected);
                }
            }
            drain(p, projected);

            assertThat(projected).isEqualTo(model.counts);
            KeyValueStore<String, dev.tally.schema.VoterItem> store = p.driver.getKeyValueStore(VoteTopology.VOTER_ITEM_STORE);
            for (String voter : VOTERS) {
                for (String item : ITEMS) {
                    String slot = voter + "|" + item;
                    dev.tally.schema.VoterItem s = store.get(voter + "|post:" + item);
                    int vote = s == null ? 0 : s.getVote();
                    String reaction = s == null ? null : s.getReaction();
                    assertThat(vote).as(slot).isEqualTo(model.votes.getOrDefault(slot, new int[1])[0]);
                    assertThat(reaction).as(slot).isEqualTo(model.reactions.get(slot));
                }
            }
        }
    }

    private static VoteCommand randomCommand(Random random, String voter, int i) {
        String item = ITEMS.get(random.nextInt(10) == 0 ? 3 + random.nextInt(2) : random.nextInt(3));
        VoteMode mode = random.nextBoolean() ? VoteMode.TOGGLE : VoteMode.SET;
        VoteCommand.Builder b = ProcessorDriver.command(voter, item).setCommandId("c-" + i).setMode(mode);
        if (random.nextBoolean()) {
            b.setAction(CommandAction.VOTE).setVoteValue(random.nextInt(3) - 1);
        } else {
            int pick = random.nextInt(CODES.size() + 1);
            b.setAction(CommandAction.REACTION).setReaction(pick == CODES.size() ? null : CODES.get(pick));
        }
        b.setRequestHash(b.getAction() + "/" + item + "/" + b.getVoteValue() + "/" + b.getReaction() + "/" + mode);
        if (random.nextInt(10) < 3) {
            b.setIdempotencyKey("k" + random.nextInt(4)); // keys get reused, with the same or another request
        }
        // a moderator's command: exempt from limits (none here), so the rules decide it as any other
        b.setModeration(random.nextInt(20) == 0);
        return b.build();
    }

    private static void drain(ProcessorDriver p, Map<String, Long> projected) {
        p.driver.advanceWallClockTime(ProcessorDriver.FLUSH);
        List<CountDelta> deltas = new ArrayList<>(p.deltas());
        for (CountDelta d : deltas) {
            merge(projected, d.getItemId() + "/up", d.getUpvotes());
            merge(projected, d.getItemId() + "/down", d.getDownvotes());
            d.getReactions().forEach((code, n) -> merge(projected, d.getItemId() + "/r/" + code, n));
        }
        p.events.readValuesToList(); // not needed here; keep the output topic from growing
    }

    private static void merge(Map<String, Long> counts, String key, long delta) {
        counts.merge(key, delta, Long::sum);
        counts.remove(key, 0L);
    }
}
