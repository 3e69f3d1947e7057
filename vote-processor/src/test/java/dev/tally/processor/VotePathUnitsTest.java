package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schema.IdempotencyRecord;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItem;
import dev.tally.schema.VoterItemState;
import dev.tally.schema.VoterQuota;
import dev.tally.schemas.AvroSerde;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * The vote path's small rules one by one, on in-memory stores: the batches of count deltas, idempotency keys at their
 * expiry, a voter's limits and history, and the weight of a new voter's vote.
 */
class VotePathUnitsTest {
    private static final long T = Instant.parse("2026-11-30T10:00:00Z").toEpochMilli();

    @Test
    void eachPartitionsDeltasLeaveAsOneBatchKeyedByItsFirstItemAndTheBatchesStartAgainEmpty() {
        DeltaBatches batches = new DeltaBatches(3);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            keys.add("post:" + i);
            batches.add("post:" + i, delta("post:" + i));
        }
        assertThat(batches.size()).isEqualTo(12);
        Map<String, CountDeltaBatch> sent = new LinkedHashMap<>();
        batches.send(sent::put);
        Map<Integer, List<String>> expected = new java.util.TreeMap<>();
        keys.forEach(k -> expected.computeIfAbsent(Topics.partition(k, 3), p -> new ArrayList<>()).add(k));
        assertThat(sent.keySet()).as("one batch a partition, in partition order, keyed by its first item")
                .containsExactlyElementsOf(expected.values().stream().map(l -> l.get(0)).toList());
        expected.values().forEach(items -> assertThat(sent.get(items.get(0)).getDeltas())
                .extracting(d -> d.getItemType() + ":" + d.getItemId()).containsExactlyElementsOf(items));
        assertThat(batches.size()).isZero();

        sent.clear();
        batches.send(sent::put);
        assertThat(sent).as("nothing gathered, nothing sent").isEmpty();
        batches.add("post:11", delta("post:11"));
        batches.send(sent::put);
        assertThat(sent).containsOnlyKeys("post:11");
    }

    @Test
    void aSinglePartitionTakesEveryDeltaAndNoPartitionsIsRefused() {
        DeltaBatches one = new DeltaBatches(1);
        one.add("post:a", delta("post:a"));
        one.add("post:b", delta("post:b"));
        Map<String, CountDeltaBatch> sent = new LinkedHashMap<>();
        one.send(sent::put);
        assertThat(sent).containsOnlyKeys("post:a");
        assertThat(sent.get("post:a").getDeltas()).hasSize(2);
        assertThatThrownBy(() -> new DeltaBatches(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tally.count-deltas has 0 partitions");
    }

    @Test
    void anIdempotencyKeyAnswersUntilTheMillisecondItExpiresAndIsPurgedFromThen() {
        KeyValueStore<String, IdempotencyRecord> store = TestStores.inMemory("idempotency-test", AvroSerde.of(IdempotencyRecord.class));
        IdempotencyKeys keys = new IdempotencyKeys(store, Duration.ofMinutes(10));
        VoteCommand keyed = ProcessorDriver.vote("v", "a", 1, dev.tally.schema.VoteMode.TOGGLE);
        keyed.setIdempotencyKey("k1");
        VoteCommand plain = ProcessorDriver.vote("v", "a", 1, dev.tally.schema.VoteMode.TOGGLE);
        VoteOutcome answer = answer(0);

        keys.remember(plain, answer, T);
        assertThat(store.approximateNumEntries()).as("a command without a key leaves nothing").isZero();
        assertThat(keys.first(plain, T)).isEmpty();

        keys.remember(keyed, answer, T);
        long expiry = T + Duration.ofMinutes(10).toMillis();
        assertThat(keys.first(keyed, expiry - 1)).map(IdempotencyRecord::getOutcome).contains(answer);
        assertThat(keys.first(keyed, expiry)).as("expired at its expiry").isEmpty();

        keys.purgeExpired(expiry - 1);
        assertThat(store.get("v|k1")).as("still live").isNotNull();
        keys.purgeExpired(expiry);
        assertThat(store.get("v|k1")).as("purged at its expiry").isNull();
    }

    @Test
    void aVotersFirstCountedVoteIsTheirHistoryFromTheNextMillisecond() {
        VoterQuotas quotas = new VoterQuotas(new VoteProcessorConfig.VoterLimits(100, Duration.ofSeconds(60), 1000),
                TestStores.inMemory("quotas-test", AvroSerde.of(VoterQuota.class)));
        VoterQuotas.Voter v = quotas.of("v");
        assertThat(v.isNew()).isTrue();
        assertThat(v.votedBefore(T + 1)).isFalse();
        v.enrol();
        assertThat(quotas.of("v").isNew()).as("enrolled: recorded without a vote").isFalse();
        assertThat(quotas.of("v").votedBefore(T + 1)).as("enrolment is no history").isFalse();

        quotas.of("v").record(T);
        assertThat(quotas.of("v").votedBefore(T)).isFalse();
        assertThat(quotas.of("v").votedBefore(T + 1)).isTrue();
        quotas.of("v").record(T + 5_000);
        assertThat(quotas.of("v").votedBefore(T + 1)).as("the first vote stays the first").isTrue();
        assertThat(quotas.of("w").votedBefore(Long.MAX_VALUE)).isFalse();
    }

    @Test
    void theWindowAndTheDayCountOnlyRecordedVotesAndADayStartsAgainAtMidnight() {
        KeyValueStore<String, VoterQuota> store = TestStores.inMemory("quotas-day-test", AvroSerde.of(VoterQuota.class));
        VoterQuotas quotas = new VoterQuotas(new VoteProcessorConfig.VoterLimits(2, Duration.ofSeconds(60), 3), store);
        quotas.of("v").record(T);
        quotas.of("v").record(T + 1_000);
        assertThat(quotas.of("v").check(T + 2_000)).map(r -> r.reason().slug + " " + r.retryAfterSeconds()).contains("rate-limited 58");
        assertThat(quotas.of("v").check(T + 60_000)).as("the first left the window at its edge").isEmpty();
        quotas.of("v").record(T + 60_000);
        assertThat(store.get("v").getRecent()).as("only votes still in the window are kept").containsExactly(T + 1_000, T + 60_000);
        assertThat(store.get("v").getDayCount()).isEqualTo(3);
        assertThat(quotas.of("v").check(T + 200_000)).map(r -> r.reason().slug).contains("quota-exceeded");
        long midnight = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();
        assertThat(quotas.of("v").check(midnight - 1)).map(r -> r.retryAfterSeconds()).contains(1L);
        assertThat(quotas.of("v").check(midnight)).isEmpty();
        quotas.of("v").record(midnight);
        assertThat(store.get("v").getDayCount()).as("a new day").isEqualTo(1);
        assertThat(store.get("v").getFirstVoteAt()).isEqualTo(T);
    }

    @Test
    void aStoreCoversEveryVoterItemOnlyWhenItSaysSoOrBeganEmpty() {
        KeyValueStore<String, VoterQuota> store = TestStores.inMemory("coverage-test", AvroSerde.of(VoterQuota.class));
        VoterQuotas old = new VoterQuotas(VoteProcessorConfig.VoterLimits.NONE, store);
        old.checkCoverage(false);
        assertThat(old.coversEveryVoterItem()).as("voter-items from before the record began").isFalse();
        assertThat(store.get(VoterQuotas.COVERAGE_KEY)).isNull();

        VoterQuotas fresh = new VoterQuotas(VoteProcessorConfig.VoterLimits.NONE, store);
        fresh.checkCoverage(true);
        assertThat(fresh.coversEveryVoterItem()).isTrue();
        VoterQuotas restarted = new VoterQuotas(VoteProcessorConfig.VoterLimits.NONE, store);
        restarted.checkCoverage(false);
        assertThat(restarted.coversEveryVoterItem()).as("the store says so from then on").isTrue();
    }

    @Test
    void aNewVotersVoteWeighsLessUntilTheyAreOldEnough() {
        VoteProcessorConfig.Weighting w = new VoteProcessorConfig.Weighting(Duration.ofHours(24), 0.25);
        Instant since = Instant.parse("2026-11-30T10:00:00Z");
        assertThat(w.of(since, since.plus(Duration.ofHours(24)).minusMillis(1))).isEqualTo(0.25);
        assertThat(w.of(since, since.plus(Duration.ofHours(24)))).isEqualTo(1.0);
        assertThat(w.of(null, since)).as("an age not known").isEqualTo(1.0);
        assertThat(new VoteProcessorConfig.Weighting(Duration.ofHours(1), 0).newVoterWeight()).isZero();
        assertThat(new VoteProcessorConfig.Weighting(Duration.ofHours(1), 1).newVoterWeight()).isEqualTo(1.0);
        assertThatThrownBy(() -> new VoteProcessorConfig.Weighting(Duration.ofHours(1), -0.01))
                .hasMessageContaining("TALLY_NEW_VOTER_WEIGHT must be between 0 and 1, was -0.01");
        assertThatThrownBy(() -> new VoteProcessorConfig.Weighting(Duration.ofHours(1), 1.01))
                .hasMessageContaining("TALLY_NEW_VOTER_WEIGHT must be between 0 and 1");
        VoteProcessorConfig.Weighting read = VoteProcessorConfig.Weighting.from(Env.of(Map.of("TALLY_NEW_VOTER_WEIGHT", "0.5",
                "TALLY_NEW_VOTER_AGE", "2h")));
        assertThat(read).isEqualTo(new VoteProcessorConfig.Weighting(Duration.ofHours(2), 0.5));
        assertThat(VoteProcessorConfig.Weighting.from(Env.of(Map.of()))).isEqualTo(VoteProcessorConfig.Weighting.DEFAULT);
        assertThatThrownBy(() -> VoteProcessorConfig.Weighting.from(Env.of(Map.of("TALLY_NEW_VOTER_WEIGHT", "half"))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("a number between 0 and 1");
    }

    @Test
    void aWeightBelowOneFromBeforeStatesCarriedTheirWeightIsReadForAVoteAndMovedOut() {
        KeyValueStore<String, VoterItem> records = TestStores.inMemory("voter-items-test", AvroSerde.of(VoterItem.class));
        KeyValueStore<String, Double> legacy = TestStores.inMemory("voter-item-weights-test", Serdes.Double());
        VoterItems items = new VoterItems(records, legacy, TestStores.inMemory("held-states-test", AvroSerde.of(VoterItemState.class)));
        assertThat(items.read("v|post:none")).isEqualTo(VoterItems.Entry.NONE);

        records.put("v|post:a", VoterItem.newBuilder().setVote(1).setWeight(1.0).build());
        legacy.put("v|post:a", 0.1);
        assertThat(items.read("v|post:a").state().getWeight()).isEqualTo(0.1);
        assertThat(legacy.get("v|post:a")).as("moved into the record when it is next written").isNull();

        records.put("v|post:b", VoterItem.newBuilder().setVote(0).setWeight(1.0).build());
        legacy.put("v|post:b", 0.1);
        assertThat(items.read("v|post:b").state().getWeight()).as("no vote, no weight to read").isEqualTo(1.0);
        assertThat(legacy.get("v|post:b")).isEqualTo(0.1);

        records.put("v|post:c", VoterItem.newBuilder().setVote(-1).setWeight(0.5).build());
        legacy.put("v|post:c", 0.1);
        assertThat(items.read("v|post:c").state().getWeight()).as("the record carries its own").isEqualTo(0.5);
        assertThat(legacy.get("v|post:c")).isEqualTo(0.1);
    }

    @Test
    void eachBatchOfAnswersGoesToThePartitionItsApiInstanceReads() {
        VoteTopology.ReplyPartitioner partitioner = new VoteTopology.ReplyPartitioner();
        dev.tally.schema.VoteOutcomeBatch batch = new dev.tally.schema.VoteOutcomeBatch(List.of(answer(5)));
        assertThat(partitioner.partitions("tally.vote-outcomes", "k", batch, 8)).contains(java.util.Set.of(5));
        assertThat(partitioner.partitions("tally.vote-outcomes", "k", batch, 4)).contains(java.util.Set.of(1));
    }

    @Test
    void theSettingsAreReadWithTheirDefaultsAndNamedWhenWrong() {
        VoteProcessorConfig defaults = VoteProcessorConfig.from(Env.of(Map.of()));
        assertThat(defaults.applicationId()).isEqualTo("tally-vote-processor");
        assertThat(defaults.deltaFlushInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(defaults.idempotencyTtl()).isEqualTo(Duration.ofHours(24));
        assertThat(defaults.voterLimits()).isEqualTo(new VoteProcessorConfig.VoterLimits(60, Duration.ofSeconds(60), 1000));
        assertThat(defaults.weighting()).isEqualTo(VoteProcessorConfig.Weighting.DEFAULT);
        assertThat(defaults.reviewDelay()).isEqualTo(Duration.ofHours(1));
        VoteProcessorConfig set = VoteProcessorConfig.from(Env.of(Map.of("TALLY_NAMESPACE", "staging", "TALLY_VOTER_LIMIT", "5",
                "TALLY_VOTER_WINDOW", "10s", "TALLY_VOTER_DAILY_LIMIT", "50", "TALLY_CATALOG_VERSION", "3", "TALLY_REQUIRE_CATALOG", "true")));
        assertThat(set.applicationId()).isEqualTo("staging-vote-processor");
        assertThat(set.voterLimits()).isEqualTo(new VoteProcessorConfig.VoterLimits(5, Duration.ofSeconds(10), 50));
        assertThat(set.catalogVersion()).isEqualTo(3);
        assertThat(set.requireCatalog()).isTrue();
        assertThatThrownBy(() -> new VoteProcessorConfig.VoterLimits(1, Duration.ZERO, 1)).hasMessageContaining("TALLY_VOTER_WINDOW");
    }

    private static VoteOutcome answer(int replyPartition) {
        return VoteOutcome.newBuilder().setCommandId("c1").setItemType("post").setItemId("a")
                .setStatus(dev.tally.schema.OutcomeStatus.APPLIED).setBefore(new VoterItemState()).setAfter(new VoterItemState())
                .setReplyPartition(replyPartition).setSourcePartition(0).setSourceOffset(1).build();
    }

    private static CountDelta delta(String itemKey) {
        String[] parts = itemKey.split(":", 2);
        return CountDelta.newBuilder().setItemType(parts[0]).setItemId(parts[1]).setUpvotes(1).setSourcePartition(0)
                .setThroughOffset(1).build();
    }
}
