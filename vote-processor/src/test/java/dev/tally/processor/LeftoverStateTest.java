package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.schema.Outcome;
import dev.tally.schema.VoteMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A test run killed midway (a timeout, Ctrl-C, an aborted CI job) leaves its Streams state behind, its stores'
 * files and locks included. Every driver has a state directory of its own, so the next run never opens it; on a
 * shared one it would fail, as the second part shows.
 */
class LeftoverStateTest {

    @Test
    void stateLeftByAKilledRunCannotFailTheNextOne() throws Exception {
        ProcessorDriver killed = new ProcessorDriver(); // never closed while the next run works: its stores stay locked
        try {
            killed.send(ProcessorDriver.vote("u1", "p1", 1, VoteMode.TOGGLE));

            try (ProcessorDriver next = new ProcessorDriver()) {
                assertThat(next.send(ProcessorDriver.vote("u1", "p1", 1, VoteMode.TOGGLE)).getOutcome()).isEqualTo(Outcome.ACCEPTED);
            }

            Path shared = Files.createTempDirectory("vote-processor-shared-");
            try (ProcessorDriver first = new ProcessorDriver(ProcessorDriver.CONFIG, shared)) {
                first.send(ProcessorDriver.vote("u1", "p1", 1, VoteMode.TOGGLE));
                assertThatThrownBy(() -> new ProcessorDriver(ProcessorDriver.CONFIG, shared).send(
                        ProcessorDriver.vote("u2", "p1", 1, VoteMode.TOGGLE)))
                        .as("a second driver on the same state directory trips over the first one's locks").isNotNull();
            }
        } finally {
            killed.close();
        }
    }
}
