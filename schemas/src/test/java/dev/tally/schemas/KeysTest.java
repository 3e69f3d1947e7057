package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The wire forms every service shares: what the fraud-detector writes, the processor and the API look up. */
class KeysTest {

    @Test
    void anItemKeyIsTypeColonIdAndTheIdMayHoldColons() {
        ItemKey key = new ItemKey("post", "a:b:c");
        assertThat(key).hasToString("post:a:b:c");
        assertThat(ItemKey.parse("post:a:b:c")).isEqualTo(key);
        assertThat(Topics.itemKey("post", "a:b:c")).isEqualTo("post:a:b:c");
        assertThatThrownBy(() -> ItemKey.parse("no-colon")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ItemKey("po:st", "1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyFlagKindHasItsPrefix() {
        ItemKey item = new ItemKey("post", "7");
        assertThat(FlagKey.challenge("n1")).hasToString("net:n1");
        assertThat(FlagKey.networkDay("n1")).hasToString("netday:n1");
        assertThat(FlagKey.networkItem("n1", item)).hasToString("netitem:n1:post:7");
        assertThat(FlagKey.burst(item)).hasToString("item:post:7");
    }
}
