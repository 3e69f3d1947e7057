package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KafkaLoadTest {
    @Test
    void aNetworkIsItsBucketIn64HexDigitsAsTheApiWritesAKeyedHash() {
        for (int networks : new int[] {1, 7, 10_000, Integer.MAX_VALUE}) {
            for (long seq = 0; seq < 1_000; seq++) {
                long bucket = Math.floorMod(seq * 0x9E3779B97F4A7C15L, (long) networks);
                assertThat(KafkaLoad.network(seq, networks)).hasSize(64).isEqualTo(String.format("%064x", bucket));
            }
        }
    }
}
