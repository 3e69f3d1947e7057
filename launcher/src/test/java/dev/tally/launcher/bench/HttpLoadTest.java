package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HttpLoadTest {
    @Test
    void readsThePositionOfAnAnswer() {
        assertThat(HttpLoad.position("{\"outcome\":\"accepted\",\"position\":\"3:1042\"}")).containsExactly(3, 1042);
        assertThat(HttpLoad.position("{\"command_id\":\"x\",\"status\":\"pending\"}")).isNull();
        assertThat(HttpLoad.position("{\"position\":\"garbage\"}")).isNull();
    }
}
