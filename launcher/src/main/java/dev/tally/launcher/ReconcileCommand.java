package dev.tally.launcher;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.projector.reconcile.ItemDrift;
import dev.tally.projector.reconcile.Progress;
import dev.tally.projector.reconcile.Reconciler;
import dev.tally.projector.reconcile.Repair;
import dev.tally.projector.reconcile.Report;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./tally reconcile [--repair]}: recomputes every count from the event log and prints the drift.
 * Progress goes to stderr; stdout has one line per drifting item, then with {@code --repair}
 * {@code repaired N items}, and always last {@code items=N drift=D} (D as found, before any repair),
 * so scripts can read the last line.
 */
@Command(name = "reconcile", mixinStandardHelpOptions = true,
        header = "Recomputes every count from the event log, prints the drift, repairs it when asked.",
        description = "Each drifting item is one line, its counts as VIEW≠LOG (= where they agree); the last line is"
                + " always items=N drift=D (D as found, before any repair).")
final class ReconcileCommand implements Callable<Integer> {
    private static final Duration REPAIR_VISIBLE = Duration.ofSeconds(30);

    @Option(names = "--repair", description = "write one correction per drifting item to tally.count-deltas")
    boolean repair;

    @Mixin
    KafkaOption kafkaOption;

    @Override
    public Integer call() throws InterruptedException {
        Env env = kafkaOption.env();
        KafkaSettings kafka = kafkaOption.kafka();
        try (var reconciler = new Reconciler(kafka, CountProjectorConfig.from(env).applicationId())) {
            ProgressBar bar = new ProgressBar(System.err);
            Report report = reconciler.reconcile(bar);
            bar.finish();
            for (ItemDrift item : report.drifting()) {
                System.out.println(item.line());
            }
            if (repair) {
                Repair done = reconciler.repair(report);
                // wait until the views show it, so a reconcile right after sees the repair (and does not repeat it)
                if (!reconciler.awaitProjected(done, REPAIR_VISIBLE)) {
                    System.err.println("reconcile: corrections written but not in tally.item-counts after "
                            + REPAIR_VISIBLE.toSeconds() + " s; is the count-projector running? Do not repair again until they are.");
                }
                System.out.println("repaired " + done.items().size() + " items");
            }
            System.out.println(report.summary());
            System.out.flush();
        }
        return 0;
    }

    /** One line on stderr, redrawn with {@code \r} at most ten times a second. */
    static final class ProgressBar implements Progress {
        private static final int WIDTH = 20;
        private final PrintStream err;
        private long lastDraw;
        private long events;
        private long read;
        private long total;
        private boolean drawn;

        ProgressBar(PrintStream err) {
            this.err = err;
        }

        @Override
        public void update(long events, long read, long total) {
            this.events = events;
            this.read = read;
            this.total = total;
            long now = System.nanoTime();
            if (!drawn || now - lastDraw > 100_000_000L) {
                draw();
                lastDraw = now;
            }
        }

        void finish() {
            draw();
            err.println();
            err.flush();
        }

        private void draw() {
            int percent = total == 0 ? 100 : (int) (read * 100 / total);
            int filled = percent * WIDTH / 100;
            err.print(String.format(Locale.ROOT, "\rreconcile [%s%s] %d%% %,d events", "#".repeat(filled),
                    ".".repeat(WIDTH - filled), percent, events));
            err.flush();
            drawn = true;
        }
    }
}
