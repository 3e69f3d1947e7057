package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.launcher.bench.NodeDrill;
import dev.tally.launcher.bench.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The whole-node crash drill, short ({@code ./tally drill --kills 50} is the long one, README "Crash
 * recovery"): {@code ./tally up} as a child process, SIGKILLed three times under paced HTTP votes and
 * restarted on its data. Every restart gets ready, and every vote is in the event log once with the views
 * equal to the log. Restart times are printed, not asserted (the machine is shared).
 */
class NodeCrashDrillIT {
    @Test
    void aNodeKilledThreeTimesUnderHttpLoadComesBackEveryTimeAndLosesAndDoublesNothing() throws Exception {
        Path dir = Files.createTempDirectory("tally-node-drill-");
        try (NodeDrill drill = new NodeDrill(dir, BenchCommand.benchEnv(dir, null))) {
            NodeDrill.Result result = drill.run(new NodeDrill.Plan(3, 100, 3, 5), Workload.UNIFORM, System.err);
            System.out.println("NodeCrashDrillIT: " + result.toJson());
            assertThat(result.ready()).as("every restart ready within 3 minutes (logs in %s)", dir).isTrue();
            assertThat(result.kills()).isEqualTo(3);
            assertThat(result.acknowledgedUnderLoad()).as("votes acknowledged while the node was up").isPositive();
            assertThat(result.lost()).as("lost").isZero();
            assertThat(result.doubleCounted()).as("double-counted").isZero();
            assertThat(result.events()).as("one event per vote").isEqualTo(result.votes());
            assertThat(result.drift()).as("reconcile drift").isZero();
        }
    }
}
