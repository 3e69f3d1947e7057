package dev.tally.launcher;

import dev.tally.launcher.bench.NodeDrill;
import dev.tally.launcher.bench.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tally drill}: the whole-node crash drill ({@link NodeDrill}) on a fresh node in a temp
 * directory on free ports. Progress on stderr; the last line on stdout is the JSON report. Exits 0 only
 * if every restart got ready and nothing was lost, counted twice or left drifting.
 */
@Command(name = "drill", mixinStandardHelpOptions = true,
        header = "Crash drill: SIGKILLs ./tally up under load, then audits every vote.",
        description = "./tally up as a child process, SIGKILLed K times under paced HTTP votes and restarted on its"
                + " data; times each restart to /readyz 200, then checks every vote against the event log (lost,"
                + " double_counted), the views against the log (reconcile drift) and the ranked lists against the log"
                + " (ranked_lists_differing). Ends with one JSON line.")
final class DrillCommand implements Callable<Integer> {
    @Option(names = "--kills", defaultValue = "50", paramLabel = "K", description = "SIGKILLs of the node [${DEFAULT-VALUE}]")
    int kills;

    @Option(names = "--rate", defaultValue = "200", paramLabel = "VOTES_PER_S",
            description = "paced HTTP votes, each a new voter, all through the drill [${DEFAULT-VALUE}]")
    int rate;

    @Option(names = "--min-up", defaultValue = "3", paramLabel = "S",
            description = "least seconds of load between the node getting ready and the next kill [${DEFAULT-VALUE}]")
    double minUp;

    @Option(names = "--max-up", defaultValue = "8", paramLabel = "S",
            description = "most seconds of load between the node getting ready and the next kill [${DEFAULT-VALUE}]")
    double maxUp;

    @Option(names = "--preload", defaultValue = "0", paramLabel = "VOTES",
            description = "votes put straight into tally.vote-commands (over a million items) and processed before "
                    + "the first kill: the log every restart starts from [${DEFAULT-VALUE}]")
    long preload;

    @Option(names = "--soak", paramLabel = "VOTES", description = "instead of kills, the soak: VOTES paced votes "
            + "(--rate) over a million items straight into tally.vote-commands, the node's RSS sampled every 10 s")
    Long soak;

    @Override
    public Integer call() throws Exception {
        if (soak != null) {
            if (soak < 1 || rate < 1) {
                System.err.println("drill: --soak and --rate must be at least 1");
                return 2;
            }
            Path dir = Files.createTempDirectory("tally-soak-");
            System.err.println("drill: soak on a node in " + dir);
            try (NodeDrill drill = new NodeDrill(dir, BenchCommand.benchEnv(dir, null))) {
                NodeDrill.SoakResult result = drill.soak(soak, rate, System.err);
                System.out.println(result.toJson());
                return result.lost() == 0 && result.doubleCounted() == 0 && result.drift() == 0 ? 0 : 1;
            }
        }
        if (kills < 1 || rate < 1 || minUp <= 0 || maxUp < minUp || preload < 0) {
            System.err.println("drill: --kills and --rate must be at least 1, 0 < --min-up <= --max-up, --preload >= 0");
            return 2;
        }
        Path dir = Files.createTempDirectory("tally-drill-");
        System.err.println("drill: a node in " + dir);
        try (NodeDrill drill = new NodeDrill(dir, BenchCommand.benchEnv(dir, null))) {
            NodeDrill.Result result = drill.run(new NodeDrill.Plan(kills, rate, minUp, maxUp, preload), Workload.UNIFORM, System.err);
            System.out.println(result.toJson());
            return result.exact() ? 0 : 1;
        }
    }
}
