package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    @Test
    void viralVotesAllLandOnOneItem() {
        SplittableRandom random = new SplittableRandom(1);
        Set<String> items = new HashSet<>();
        for (long seq = 0; seq < 10_000; seq++) {
            items.add(Workload.VIRAL.vote(seq, random).itemId());
        }
        assertThat(items).containsExactly(Workload.VIRAL_ITEM);
    }

    @Test
    void everyVoteIsADistinctVoterItemPairWithAHashedLookingVoter() {
        for (Workload w : Workload.values()) {
            SplittableRandom random = new SplittableRandom(2);
            Set<String> pairs = new HashSet<>();
            Set<String> voters = new HashSet<>();
            for (long seq = 0; seq < 50_000; seq++) {
                Workload.Vote v = w.vote(seq, random);
                assertThat(v.value()).isIn(1, -1);
                assertThat(v.voter()).matches("bench-[0-9a-f]{16}");
                voters.add(v.voter());
                pairs.add(v.voter() + "|" + v.itemKey());
            }
            assertThat(voters).as(w + " voters").hasSize(50_000);
            assertThat(pairs).as(w + " pairs").hasSize(50_000);
        }
    }

    @Test
    void uniformSpreadsOverTheHundredThousandItems() {
        SplittableRandom random = new SplittableRandom(3);
        Set<String> items = new HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            String item = Workload.UNIFORM.item(random);
            assertThat(Integer.parseInt(item.substring(1))).isBetween(0, Workload.ITEMS - 1);
            items.add(item);
        }
        // 200k uniform draws over 100k items hit about 1 - e^-2 = 86% of them
        assertThat(items.size()).isBetween(84_000, 88_000);
    }

    @Test
    void zipfIsSkewedTowardTheTopItemsWithExponentOnePointOne() {
        SplittableRandom random = new SplittableRandom(4);
        Map<String, Integer> hits = new HashMap<>();
        int draws = 200_000;
        for (int i = 0; i < draws; i++) {
            hits.merge(Workload.ZIPF.item(random), 1, Integer::sum);
        }
        var zipf = Workload.zipf();
        double p0 = zipf.probability(0);
        // P(k) ∝ (k+1)^-1.1: rank 1 over rank 10 is 10^1.1 ≈ 12.6
        assertThat(p0 / zipf.probability(9)).isCloseTo(Math.pow(10, 1.1), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(hits.get("i0") / (double) draws).isCloseTo(p0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(hits.get("i0")).isGreaterThan(10 * hits.getOrDefault("i9", 0));
        long top100 = 0;
        for (int k = 0; k < 100; k++) {
            top100 += hits.getOrDefault("i" + k, 0);
        }
        assertThat(top100 / (double) draws).as("the top 0.1% of items take most votes").isGreaterThan(0.5);
        assertThat(hits.size()).as("but the tail is reached").isGreaterThan(1_000);
    }

    @Test
    void hookedSpreadsOverTheTenThousandItemsTheWebhookBenchSubscribes() {
        SplittableRandom random = new SplittableRandom(3);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            String item = Workload.HOOKED.item(random);
            assertThat(item).startsWith("h");
            assertThat(Integer.parseInt(item.substring(1))).isBetween(0, Workload.HOOKED_ITEMS - 1);
            seen.add(item);
        }
        assertThat(seen).hasSize(Workload.HOOKED_ITEMS);
    }

    @Test
    void parsesTheContractNames() {
        assertThat(Workload.parse("Zipf")).isEqualTo(Workload.ZIPF);
        assertThat(Workload.VIRAL.cliName()).isEqualTo("viral");
        assertThat(Workload.parse("hooked")).isEqualTo(Workload.HOOKED);
        assertThatThrownBy(() -> Workload.parse("burst")).hasMessageContaining("uniform, zipf, viral, catalogue, spread or hooked");
    }
}
