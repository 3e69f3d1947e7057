package dev.tally.fraud;

import dev.tally.schemas.Namespace;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CommandAction;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.NetworkActivity;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteCommandBatch;
import dev.tally.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every network rule of the fraud-detector at its edges, with explicit command times (bursts: the count-projector's {@code BurstWatchTest}). */
class FraudTopologyTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private static final FraudDetectorConfig CONFIG = new FraudDetectorConfig(Namespace.DEFAULT, Duration.ofMillis(100), 10,
            Duration.ofSeconds(60), Duration.ofMinutes(10), 50, 10, Duration.ofMinutes(5), 30);
    private final Path stateDir;
    private final TopologyTestDriver driver;
    private final TestInputTopic<String, VoteCommandBatch> networks;
    private final TestOutputTopic<String, FraudFlag> flags;

    FraudTopologyTest(@TempDir Path stateDir) {
        this.stateDir = stateDir;
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fraud-topology-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(FraudTopology.build(CONFIG), props, T0);
        networks = driver.createInputTopic(Topics.NETWORK_COMMANDS.name(), Topics.NETWORK_COMMANDS.keySerde().serializer(),
                Topics.NETWORK_COMMANDS.valueSerde().serializer());
        flags = driver.createOutputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().deserializer(),
                Topics.FRAUD_FLAGS.valueSerde().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    private void vote(String voter, String network, String item, Instant at) {
        vote(networks, voter, network, item, at);
    }

    private static void vote(TestInputTopic<String, VoteCommandBatch> networks, String voter, String network, String item,
                             Instant at) {
        VoteCommand c = VoteCommand.newBuilder().setCommandId(UUID.randomUUID().toString()).setVoter(voter)
                .setNetwork(network).setItemType("post").setItemId(item).setAction(CommandAction.VOTE)
                .setVoteValue(1).setReceivedAt(at).build();
        networks.pipeInput(network, Topics.batchOf(c), at); // what the vote-processor writes for a command with a network
    }

    @Test
    void tenVotersFromOneNetworkInAMinuteAreFineTheEleventhRaisesAChallenge() {
        for (int i = 0; i < 10; i++) {
            vote("v" + i, "netA", "i" + i, T0.plusSeconds(i));
        }
        assertThat(flags.isEmpty()).isTrue();

        vote("v10", "netA", "x", T0.plusSeconds(30));

        FraudFlag flag = flags.readValue();
        assertThat(flag.getKey()).isEqualTo("net:netA");
        assertThat(flag.getKind()).isEqualTo(FlagKind.CHALLENGE);
        assertThat(flag.getExpiresAt()).isEqualTo(T0.plusSeconds(30).plus(Duration.ofMinutes(10)));
    }

    @Test
    void aChallengeRunsItsTimeAndTheClusterStillThereAtItsLastMillisecondIsChallengedAgain() {
        for (int i = 0; i <= 10; i++) {
            vote("v" + i, "netE", "i" + i, T0.plusSeconds(i));
        }
        Instant until = T0.plusSeconds(10).plus(Duration.ofMinutes(10));
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getExpiresAt).containsExactly(until);
        for (int i = 0; i < 10; i++) {
            vote("w" + i, "netE", "j" + i, until.minusSeconds(30 - i));
        }
        assertThat(flags.isEmpty()).as("eleven voters in the window while challenged: no second flag").isTrue();
        vote("w10", "netE", "j10", until);
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getExpiresAt).as("at the challenge's end a new one")
                .containsExactly(until.plus(Duration.ofMinutes(10)));
    }

    @Test
    void votersOlderThanTheWindowNoLongerCount() {
        for (int i = 0; i < 10; i++) {
            vote("v" + i, "netA", "i" + i, T0);
        }
        vote("v10", "netA", "x", T0.plusSeconds(60));

        assertThat(flags.isEmpty()).as("the first ten left the window at T0+60").isTrue();
    }

    @Test
    void theSameVoterManyTimesIsNotACluster() {
        for (int i = 0; i < 40; i++) {
            vote("same", "netA", "i" + i, T0.plusSeconds(i));
        }
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getKey).doesNotContain("net:netA");
    }

    @Test
    void aNetworkOverItsPerItemDailyQuotaIsFlaggedUntilMidnight() {
        for (int i = 0; i < 10; i++) {
            vote("v" + i, "netB", "target", T0.plus(Duration.ofMinutes(2L * i)));
        }
        assertThat(flags.isEmpty()).isTrue();

        vote("v10", "netB", "target", T0.plus(Duration.ofMinutes(30)));

        FraudFlag flag = flags.readValue();
        assertThat(flag.getKey()).isEqualTo("netitem:netB:post:target");
        assertThat(flag.getKind()).isEqualTo(FlagKind.QUOTA);
        assertThat(flag.getExpiresAt()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
    }

    @Test
    void aNetworkOverItsDailyQuotaIsFlaggedAndANewDayStartsAgain() {
        for (int i = 0; i < 51; i++) {
            vote("v" + (i % 5), "netC", "i" + i, T0.plus(Duration.ofMinutes(i)));
        }
        List<String> keys = flags.readValuesToList().stream().map(FraudFlag::getKey).toList();
        assertThat(keys).containsExactly("netday:netC");

        vote("v0", "netC", "new-day", Instant.parse("2026-12-01T00:00:01Z"));
        assertThat(flags.isEmpty()).isTrue();
    }

    @Test
    void theLastVoteWithinTheDailyQuotaStillCountsTowardsTheItemQuota() {
        for (int i = 0; i < 39; i++) {
            vote("v" + (i % 5), "netF", "other" + i, T0.plus(Duration.ofMinutes(i)));
        }
        for (int i = 0; i < 11; i++) { // votes 40 to 50 of the day: the 50th, the last within quota, is the item's 11th
            vote("v" + (i % 5), "netF", "target", T0.plus(Duration.ofMinutes(40 + i)));
        }
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getKey).containsExactly("netitem:netF:post:target");
    }

    @Test
    void aNewDayStartsBothQuotasFromNothing() {
        for (int i = 0; i < 10; i++) {
            vote("v" + (i % 5), "netG", "target", T0.plus(Duration.ofMinutes(i)));
        }
        for (int i = 10; i < 50; i++) {
            vote("v" + (i % 5), "netG", "i" + i, T0.plus(Duration.ofMinutes(i)));
        }
        assertThat(flags.isEmpty()).as("50 votes, 10 of them on one item: within both quotas").isTrue();
        Instant nextDay = Instant.parse("2026-12-01T00:00:00Z");
        vote("v0", "netG", "target", nextDay);
        assertThat(flags.isEmpty()).as("the item's count started again: 1, not 11").isTrue();
        for (int i = 1; i < 50; i++) {
            vote("v" + (i % 5), "netG", "n" + i, nextDay.plusSeconds(i));
        }
        assertThat(flags.isEmpty()).as("50 votes on the new day: within quota").isTrue();
        vote("v0", "netG", "n50", nextDay.plusSeconds(50));
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getKey).as("the 51st of the new day")
                .containsExactly("netday:netG");
    }

    @Test
    void aBusyNetworkKeepsOnlyTheVotersTheRuleNeedsAndNoItemCountsOnceOverItsQuota() {
        var store = driver.<String, NetworkActivity>getKeyValueStore(FraudTopology.NETWORK_STORE);
        for (int i = 0; i < 50; i++) {
            vote("v" + i, "netBusy", "i" + (i % 25), T0.plusMillis(100L * i));
        }
        assertThat(store.get("netBusy").getItemDayCounts()).as("within its daily quota: every item counted").hasSize(25);

        for (int i = 50; i < 500; i++) {
            vote("v" + i, "netBusy", "i" + i, T0.plusMillis(100L * i));
        }
        NetworkActivity a = store.get("netBusy");
        assertThat(a.getVoters()).as("clusterVoters + 1 latest").hasSize(11).containsKey("v499");
        assertThat(a.getItemDayCounts()).as("over its quota (50): the netday flag refuses everything").isEmpty();
        assertThat(a.getDayCount()).isEqualTo(500);
        assertThat(flags.readValuesToList()).extracting(FraudFlag::getKey).contains("netday:netBusy");
    }

    /**
     * Against a model that keeps every voter of the window: the capped window raises exactly the same challenges,
     * at the same votes, over random traffic from a few networks (each challenge expiring and rising again).
     */
    @Test
    void theCappedWindowChallengesExactlyWhenAnUncappedOneWould() {
        FraudDetectorConfig config = new FraudDetectorConfig(Namespace.DEFAULT, Duration.ofMillis(100), 5, Duration.ofSeconds(30),
                Duration.ofSeconds(60), 1_000_000, 1_000_000, Duration.ofMinutes(5), 1_000_000);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fraud-model-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()); // its own: a killed run's leftovers never matter
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        try (TopologyTestDriver model = new TopologyTestDriver(FraudTopology.build(config), props, T0)) {
            var in = model.createInputTopic(Topics.NETWORK_COMMANDS.name(), Topics.NETWORK_COMMANDS.keySerde().serializer(),
                    Topics.NETWORK_COMMANDS.valueSerde().serializer());
            var out = model.createOutputTopic(Topics.FRAUD_FLAGS.name(), Topics.FRAUD_FLAGS.keySerde().deserializer(),
                    Topics.FRAUD_FLAGS.valueSerde().deserializer());
            java.util.Random random = new java.util.Random(7);
            java.util.Map<String, java.util.Map<String, Long>> windows = new java.util.HashMap<>();
            java.util.Map<String, Long> challengedUntil = new java.util.HashMap<>();
            List<String> expected = new java.util.ArrayList<>();
            Instant at = T0;
            for (int i = 0; i < 4000; i++) {
                at = at.plusMillis(random.nextInt(3000));
                String network = "net" + random.nextInt(3);
                String voter = "v" + random.nextInt(40);
                long now = at.toEpochMilli();
                var voters = windows.computeIfAbsent(network, n -> new java.util.HashMap<>());
                voters.values().removeIf(t -> t <= now - 30_000);
                voters.put(voter, now);
                if (voters.size() > 5 && challengedUntil.getOrDefault(network, 0L) <= now) {
                    challengedUntil.put(network, now + 60_000);
                    expected.add("net:" + network + "@" + now);
                }
                vote(in, voter, network, "i" + i, at);
            }
            List<String> raised = out.readValuesToList().stream()
                    .map(f -> f.getKey() + "@" + f.getRaisedAt().toEpochMilli()).toList();
            assertThat(expected).hasSizeGreaterThan(10);
            assertThat(raised).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void yesterdaysNetworksAreKeptAndOlderOnesPurged() {
        vote("v1", "netOld", "target", T0);
        var activity = driver.<String, NetworkActivity>getKeyValueStore(FraudTopology.NETWORK_STORE);

        driver.advanceWallClockTime(Duration.ofDays(1)); // T0's day is yesterday now
        assertThat(activity.get("netOld")).isNotNull();

        vote("v2", "netToday", "target", T0.plus(Duration.ofDays(1)));
        driver.advanceWallClockTime(Duration.ofDays(1));
        assertThat(activity.get("netOld")).as("two days old").isNull();
        assertThat(activity.get("netToday")).isNotNull();
    }

    /**
     * A network under a challenge keeps its record, however old its day, until the challenge's last millisecond: the
     * purge at that instant deletes it, one a millisecond earlier keeps it.
     */
    @Test
    void anOldNetworkIsKeptWhileItsChallengeLastsAndPurgedTheMomentItEnds() {
        Duration challenge = Duration.ofDays(3);
        for (long early : new long[] {1, 0}) {
            FraudDetectorConfig config = new FraudDetectorConfig(Namespace.DEFAULT, Duration.ofMillis(100), 1,
                    Duration.ofSeconds(60), challenge, 50, 10, Duration.ofMinutes(5), 30);
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fraud-purge-test-" + early);
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
            try (TopologyTestDriver purging = new TopologyTestDriver(FraudTopology.build(config), props, T0)) {
                var in = purging.createInputTopic(Topics.NETWORK_COMMANDS.name(),
                        Topics.NETWORK_COMMANDS.keySerde().serializer(), Topics.NETWORK_COMMANDS.valueSerde().serializer());
                vote(in, "v1", "netA", "i1", T0);
                vote(in, "v2", "netA", "i2", T0); // two voters over a limit of one: challenged until T0 + 3 days
                var activity = purging.<String, NetworkActivity>getKeyValueStore(FraudTopology.NETWORK_STORE);
                assertThat(activity.get("netA").getChallengeUntil()).isEqualTo(T0.plus(challenge).toEpochMilli());

                purging.advanceWallClockTime(challenge.minusMillis(early)); // T0's day is three days old by then
                if (early > 0) {
                    assertThat(activity.get("netA")).as("challenged a millisecond longer").isNotNull();
                } else {
                    assertThat(activity.get("netA")).as("its challenge over").isNull();
                }
            }
        }
    }
}
