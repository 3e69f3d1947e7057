package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.launcher.bench.NodeDrill;
import dev.tally.launcher.bench.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole-node crash drill, short ({@code ./tally drill --kills 50} is the long one): {@code ./tally up} as a child process, 10,000 votes put in its log and processed, then
 * SIGKILLed twice under paced HTTP votes and restarted on its data. Every restart gets ready, and every
 * vote is in the event log once with the views and every ranked list equal to the log's. Restart times are printed, not asserted (the
 * machine is shared). The first start logs no ERROR or WARN line, and no restart an ERROR.
 */
class NodeCrashDrillIT {
    @Test
    void aNodeKilledTwiceUnderHttpLoadComesBackEveryTimeAndLosesAndDoublesNothing(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        try (NodeDrill drill = new NodeDrill(dir, BenchCommand.benchEnv(dir, null))) {
            NodeDrill.Result result = drill.run(new NodeDrill.Plan(2, 100, 3, 5, 10_000), Workload.UNIFORM, System.err);
            System.out.println("NodeCrashDrillIT: " + result.toJson());
            assertThat(result.ready()).as("every restart ready within 3 minutes (logs in %s)", dir).isTrue();
            assertThat(result.kills()).isEqualTo(2);
            assertThat(result.preloaded()).as("votes preloaded").isEqualTo(10_000);
            assertThat(result.acknowledgedUnderLoad()).as("votes acknowledged while the node was up").isPositive();
            assertThat(result.lost()).as("lost").isZero();
            assertThat(result.doubleCounted()).as("double-counted").isZero();
            assertThat(result.events()).as("one event per vote").isEqualTo(result.votes());
            assertThat(result.drift()).as("reconcile drift").isZero();
            assertThat(result.listsDiffering()).as("ranked lists that differ from the log's").isZero();
        }
        // a healthy first start says nothing alarming; a restart after SIGKILL reports no error either
        assertThat(problems(dir.resolve("up-0.log"), " ERROR | WARN  ")).as("ERROR or WARN on the first start").isEmpty();
        for (int start = 1; start <= 2; start++) {
            assertThat(problems(dir.resolve("up-" + start + ".log"), " ERROR ")).as("ERROR on restart %d", start).isEmpty();
        }
    }

    /** The console lines of one start of the node that match {@code levels}. */
    private static List<String> problems(Path log, String levels) throws IOException {
        Pattern level = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(" + levels + ")");
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> level.matcher(l).find()).toList();
        }
    }
}
