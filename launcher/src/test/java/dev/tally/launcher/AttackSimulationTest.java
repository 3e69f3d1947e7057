package dev.tally.launcher;

import dev.tally.schemas.Namespace;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.fraud.FraudDetectorConfig;
import dev.tally.fraud.FraudTopology;
import dev.tally.fraud.ItemWatch;
import dev.tally.processor.VoteProcessorConfig;
import dev.tally.projector.CountTopology;
import dev.tally.processor.VoteTopology;
import dev.tally.schema.CommandAction;
import dev.tally.schema.CountDelta;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.OutcomeStatus;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteMode;
import dev.tally.schema.VoteOutcome;
import dev.tally.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A labeled attack simulation: organic Zipf traffic from voters with history, mixed with three attacks —
 * a botnet inside one /24, a brigade of brand-new voters on one item, and a slow drip from many networks.
 * Commands go through the API's rules on the fraud flags (quota → 429, clustering → 403 unless a
 * challenge is passed; bots never pass), then to the real vote-processor topology; the real
 * fraud-detector topology watches every command with a network that the processor passes on, the real count-projector
 * topology watches every item's count deltas for bursts, and their flags flow into both. The test reports precision and recall of what was refused or quarantined, and proves nothing is lost:
 * every held vote ends counted or recorded as discarded, and the counts equal the accepted votes.
 */
class AttackSimulationTest {
    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

    enum Label { ORGANIC, BOTNET, BRIGADE, DRIP }

    record Cast(VoteCommand command, Label label) {}

    private static Properties projectorProps(Properties props) {
        Properties p = new Properties();
        p.putAll(props);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "sim-projector");
        return p;
    }

    @TempDir
    Path stateDir;

    @Test
    void attacksAreCaughtOrganicTrafficIsNotAndNothingIsLost() {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "sim-processor");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        VoteProcessorConfig pc = new VoteProcessorConfig(Namespace.DEFAULT, Duration.ofMillis(100), Duration.ofMillis(100),
                Duration.ofHours(24), 1, false, new VoteProcessorConfig.VoterLimits(60, Duration.ofSeconds(60), 1000),
                VoteProcessorConfig.Weighting.DEFAULT, Duration.ofHours(1));
        Properties fprops = new Properties();
        fprops.putAll(props);
        fprops.put(StreamsConfig.APPLICATION_ID_CONFIG, "sim-fraud");
        FraudDetectorConfig fc = FraudDetectorConfig.from(dev.tally.common.Env.of(Map.of()));
        try (var processor = new TopologyTestDriver(VoteTopology.build(pc, 1), props, T0);
             var fraud = new TopologyTestDriver(FraudTopology.build(fc), fprops, T0);
             var projector = new TopologyTestDriver(CountTopology.build(Namespace.DEFAULT, ItemWatch.of(fc)), projectorProps(props), T0)) {
            var commands = processor.createInputTopic(Topics.VOTE_COMMANDS.name(), Topics.VOTE_COMMANDS.keySerde().serializer(),
                    Topics.VOTE_COMMANDS.valueSerde().serializer());
            var processorFlags = processor.createInputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().serializer(),
                    Topics.FRAUD_FLAGS.valueSerde().serializer());
            var reactions = processor.createInputTopic(Topics.REACTION_TYPES.name(), Topics.REACTION_TYPES.keySerde().serializer(),
                    Topics.REACTION_TYPES.valueSerde().serializer());
            reactions.pipeInput("like", new ReactionType("like", "Like", null, true, Instant.EPOCH));
            var decisions = processor.createInputTopic(Topics.QUARANTINE_DECISIONS.name(),
                    Topics.QUARANTINE_DECISIONS.keySerde().serializer(), Topics.QUARANTINE_DECISIONS.valueSerde().serializer());
            var outcomes = processor.createOutputTopic(Topics.VOTE_OUTCOMES.name(), Topics.VOTE_OUTCOMES.keySerde().deserializer(),
                    Topics.VOTE_OUTCOMES.valueSerde().deserializer());
            var deltas = processor.createOutputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().deserializer(),
                    Topics.COUNT_DELTAS.valueSerde().deserializer());
            var quarantine = processor.createOutputTopic(Topics.QUARANTINE.name(), Topics.QUARANTINE.keySerde().deserializer(),
                    Topics.QUARANTINE.valueSerde().deserializer());
            var networks = processor.createOutputTopic(Topics.NETWORK_COMMANDS.name(),
                    Topics.NETWORK_COMMANDS.keySerde().deserializer(), Topics.NETWORK_COMMANDS.valueSerde().deserializer());
            var fraudIn = fraud.createInputTopic(Topics.NETWORK_COMMANDS.name(), Topics.NETWORK_COMMANDS.keySerde().serializer(),
                    Topics.NETWORK_COMMANDS.valueSerde().serializer());
            var fraudOut = fraud.createOutputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().deserializer(),
                    Topics.FRAUD_FLAGS.valueSerde().deserializer());
            var projectorDeltas = projector.createInputTopic(Topics.COUNT_DELTAS.name(), Topics.COUNT_DELTAS.keySerde().serializer(),
                    Topics.COUNT_DELTAS.valueSerde().serializer());
            var burstOut = projector.createOutputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().deserializer(),
                    Topics.FRAUD_FLAGS.valueSerde().deserializer());

            List<Cast> traffic = traffic(new Random(11));
            Map<String, FraudFlag> flags = new HashMap<>();
            Map<Label, int[]> caught = new HashMap<>(); // [total, refused, quarantined]
            long accepted = 0;
            long counted = 0;
            Set<String> held = new HashSet<>();
            for (Cast cast : traffic) {
                VoteCommand c = cast.command();
                int[] tally = caught.computeIfAbsent(cast.label(), l -> new int[3]);
                tally[0]++;
                if (refusedByApi(c, flags)) {
                    tally[1]++;
                    continue;
                }
                commands.pipeInput(c.getVoter(), Topics.batchOf(c), c.getReceivedAt());
                VoteOutcome o = outcomes.readValue().getOutcomes().get(0);
                // the network watch reads the commands with a network that the processor passes on
                networks.readKeyValuesToList().forEach(n -> fraudIn.pipeInput(n.key, n.value, c.getReceivedAt()));
                // the burst watch (in the count-projector) reads the processor's count deltas, flushed every 100 ms
                processor.advanceWallClockTime(Duration.ofMillis(100));
                for (var d : deltas.readKeyValuesToList()) {
                    counted += d.value.getDeltas().stream().mapToLong(x -> x.getUpvotes() + x.getDownvotes()).sum();
                    projectorDeltas.pipeInput(d.key, d.value, c.getReceivedAt());
                }
                List<FraudFlag> raised = new ArrayList<>(fraudOut.readValuesToList());
                raised.addAll(burstOut.readValuesToList());
                for (FraudFlag f : raised) {
                    flags.put(f.getKey(), f);
                    processorFlags.pipeInput(f.getKey(), f);
                }
                List<QuarantineRecord> q = quarantine.readValuesToList();
                if (!q.isEmpty()) {
                    tally[2]++;
                    q.forEach(r -> held.add(r.getCommandId()));
                } else if (o.getStatus() == OutcomeStatus.APPLIED) {
                    accepted += o.getOutcome() == dev.tally.schema.Outcome.UNCHANGED ? 0 : 1; // a repeat changes no count
                } else {
                    tally[1]++; // rate-limited by the per-voter window
                }
            }

            // review: release every held vote from the organic label, discard the rest (as a moderator would)
            Map<String, Label> labelOf = new HashMap<>();
            traffic.forEach(t -> labelOf.put(t.command().getCommandId(), t.label()));
            long released = 0;
            Map<String, QuarantineRecord> heldRecords = new HashMap<>();
            for (String id : held) {
                VoteCommand c = traffic.stream().map(Cast::command).filter(x -> x.getCommandId().equals(id)).findFirst().orElseThrow();
                QuarantineRecord decision = new QuarantineRecord(id, labelOf.get(id) == Label.ORGANIC
                        ? QuarantineStatus.RELEASED : QuarantineStatus.DISCARDED, "simulated review", c, Instant.now());
                decisions.pipeInput(c.getVoter(), decision);
                released += decision.getStatus() == QuarantineStatus.RELEASED ? 1 : 0;
            }
            quarantine.readValuesToList().forEach(r -> heldRecords.put(r.getCommandId(), r));
            processor.advanceWallClockTime(Duration.ofMillis(200));
            counted += deltas.readValuesToList().stream().flatMap(b -> b.getDeltas().stream())
                    .mapToLong(d -> d.getUpvotes() + d.getDownvotes()).sum();

            int attackTotal = 0;
            int attackCaught = 0;
            int organicCaught = caught.get(Label.ORGANIC)[1] + caught.get(Label.ORGANIC)[2];
            StringBuilder report = new StringBuilder("attack simulation\n");
            for (Label l : Label.values()) {
                int[] t = caught.get(l);
                report.append(String.format("  %-8s %5d votes  %5d refused  %5d quarantined  recall %.2f%n", l, t[0], t[1], t[2],
                        (t[1] + t[2]) / (double) t[0]));
                if (l != Label.ORGANIC) {
                    attackTotal += t[0];
                    attackCaught += t[1] + t[2];
                }
            }
            double precision = attackCaught / (double) (attackCaught + organicCaught);
            double recall = attackCaught / (double) attackTotal;
            report.append(String.format("  precision %.3f  recall %.3f  (held %d: released %d, discarded %d)%n",
                    precision, recall, held.size(), released, held.size() - released));
            System.out.print(report);

            assertThat(heldRecords.keySet()).as("every held vote was decided").containsExactlyInAnyOrderElementsOf(held);
            assertThat(counted).as("counts = accepted + released: nothing lost, nothing twice").isEqualTo(accepted + released);
            assertThat(caught.get(Label.BOTNET)[1] + caught.get(Label.BOTNET)[2]).as("the botnet is stopped after 10 voters")
                    .isGreaterThan(caught.get(Label.BOTNET)[0] * 9 / 10);
            assertThat(caught.get(Label.BRIGADE)[2]).as("the brigade is held after the burst floor").isPositive();
            assertThat(precision).isGreaterThan(0.9);
        }
    }

    /** The API's refusals on the flags (FraudGate): quotas → 429; a challenged network → 403 (bots never solve it). */
    private static boolean refusedByApi(VoteCommand c, Map<String, FraudFlag> flags) {
        Instant t = c.getReceivedAt();
        String net = c.getNetwork();
        for (String key : List.of("netday:" + net, "netitem:" + net + ":post:" + c.getItemId(), "net:" + net)) {
            FraudFlag f = flags.get(key);
            if (f != null && !t.isBefore(f.getRaisedAt()) && t.isBefore(f.getExpiresAt())) {
                return f.getKind() != FlagKind.CHALLENGE || !c.getVoter().startsWith("organic"); // people pass challenges
            }
        }
        return false;
    }

    private static List<Cast> traffic(Random r) {
        List<Cast> out = new ArrayList<>();
        // organic: 1500 voters with history (a vote an hour before), Zipf s=1.1 over 200 items, 3 hours
        for (int v = 0; v < 1500; v++) {
            out.add(new Cast(vote("organic-" + v, "home-" + (v / 3), "warmup-" + (v % 50), T0.minusSeconds(3600 + v)), Label.ORGANIC));
        }
        double[] cdf = zipf(200, 1.1);
        for (int i = 0; i < 6000; i++) {
            int v = r.nextInt(1500);
            int item = pick(cdf, r.nextDouble());
            out.add(new Cast(vote("organic-" + v, "home-" + (v / 3), "p" + item, T0.plusSeconds(r.nextInt(3 * 3600))), Label.ORGANIC));
        }
        // a botnet inside one /24: 300 bots, 2 minutes, on one item
        for (int b = 0; b < 300; b++) {
            out.add(new Cast(vote("bot-" + b, "botnet", "target-a", T0.plusSeconds(600 + b * 120L / 300)), Label.BOTNET));
        }
        // a brigade of new accounts on one item: 120 new voters from 120 networks within 60 s
        for (int b = 0; b < 120; b++) {
            out.add(new Cast(vote("brigade-" + b, "brig-" + b, "target-b", T0.plusSeconds(3600 + b / 2)), Label.BRIGADE));
        }
        // a slow drip: one new voter a minute from a new network, 3 hours, on one item
        for (int d = 0; d < 180; d++) {
            out.add(new Cast(vote("drip-" + d, "drip-" + d, "target-c", T0.plusSeconds(d * 60L + 30)), Label.DRIP));
        }
        out.sort((a, b) -> a.command().getReceivedAt().compareTo(b.command().getReceivedAt()));
        return out;
    }

    private static VoteCommand vote(String voter, String network, String item, Instant at) {
        return VoteCommand.newBuilder().setCommandId(voter + "@" + item + "@" + at.toEpochMilli()).setVoter(voter)
                .setNetwork(network).setItemType("post").setItemId(item).setAction(CommandAction.VOTE).setVoteValue(1)
                .setMode(VoteMode.SET).setRequestHash("").setReplyPartition(0).setReceivedAt(at).build();
    }

    private static double[] zipf(int n, double s) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int k = 1; k <= n; k++) {
            sum += 1 / Math.pow(k, s);
            cdf[k - 1] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
        return cdf;
    }

    private static int pick(double[] cdf, double u) {
        for (int k = 0; k < cdf.length; k++) {
            if (u <= cdf[k]) {
                return k;
            }
        }
        return cdf.length - 1;
    }

}
