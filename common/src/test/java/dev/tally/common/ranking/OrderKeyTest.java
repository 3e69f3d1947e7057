package dev.tally.common.ranking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Order keys against an independent model: sorting their bytes as RocksDB does (unsigned, byte by byte) gives the
 * list's order — the key highest first by {@link Double#compare}, {@code -0.0} equal to {@code 0.0}, then the item id
 * ascending — over random keys that include the extremes; and every key decodes to what it encoded.
 */
class OrderKeyTest {
    private static final double[] EDGES = {0.0, -0.0, 1.0, -1.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE,
            -Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e-300, -1e-300, 0.5, 2.0, 1e6, 20_000.25};

    private static final Comparator<OrderKey> MODEL = Comparator
            .comparingDouble((OrderKey k) -> k.key() == 0.0 ? 0.0 : k.key()).reversed()
            .thenComparing(OrderKey::itemId);

    @Test
    void theBytesSortInTheListsOrder() {
        SplittableRandom random = new SplittableRandom(56);
        List<OrderKey> keys = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            double key = switch (random.nextInt(4)) {
                case 0 -> EDGES[random.nextInt(EDGES.length)];
                case 1 -> random.nextInt(-5, 6); // many ties, broken by id
                case 2 -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-12, 13));
                default -> Double.longBitsToDouble(random.nextLong()); // any bit pattern but NaN
            };
            if (!Double.isNaN(key)) {
                keys.add(new OrderKey(key, id(random)));
            }
        }
        List<OrderKey> byModel = new ArrayList<>(keys);
        byModel.sort(MODEL);
        List<OrderKey> byBytes = new ArrayList<>(keys);
        byBytes.sort((a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes()));

        assertThat(byBytes).isEqualTo(byModel);
    }

    @Test
    void everyKeyDecodesToWhatItEncoded() {
        for (double key : EDGES) {
            OrderKey k = new OrderKey(key, "post-1:a.b_c");
            assertThat(OrderKey.of(k.bytes())).isEqualTo(k);
        }
        assertThat(new OrderKey(-0.0, "x")).as("-0.0 is 0.0").isEqualTo(new OrderKey(0.0, "x"));
    }

    @Test
    void aKeyThatIsNotANumberOrAnEmptyIdIsRefused() {
        assertThatThrownBy(() -> new OrderKey(Double.NaN, "x")).hasMessageContaining("must be a number");
        assertThatThrownBy(() -> new OrderKey(1, "")).hasMessageContaining("item id");
        assertThatThrownBy(() -> OrderKey.of(new byte[8])).hasMessageContaining("8 bytes and an item id");
        byte[] notANumber = {-1, -1, -1, -1, -1, -1, -1, -1, 'x'}; // what no key encodes to: a forged cursor
        assertThatThrownBy(() -> OrderKey.of(notANumber)).hasMessageContaining("no list holds NaN");
    }

    private static String id(SplittableRandom random) {
        String alphabet = "AZaz09._:-";
        StringBuilder sb = new StringBuilder();
        for (int n = random.nextInt(1, 6); n > 0; n--) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
