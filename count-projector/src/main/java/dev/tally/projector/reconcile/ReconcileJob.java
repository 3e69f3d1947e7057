package dev.tally.projector.reconcile;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.projector.CountProjectorConfig;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./tally reconcile} on a timer, inside a running node: every {@code TALLY_RECONCILE_INTERVAL}
 * it reconciles, logs {@code items=N drift=D} (INFO, WARN when D &gt; 0, with the first drifting items),
 * and with {@code TALLY_RECONCILE_REPAIR=true} repairs.
 *
 * <p>A repair is skipped while the corrections of the previous one are not yet reflected in the views
 * (the count-projector stopped or lagging): the run would see the same drift and correct it twice. The
 * check is made before the run's snapshot, so a run that repairs has seen the previous repair.
 *
 * <p>Off by default. A failed run is logged and the next one comes at the usual time.
 */
public final class ReconcileJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReconcileJob.class);
    private static final int LOGGED_ITEMS = 20;

    private final ReconcileConfig config;
    private final Supplier<Reconciler> reconcilers;
    private Reconciler reconciler;
    private ScheduledExecutorService timer;
    private Repair lastRepair = Repair.NONE;
    private volatile boolean closing;

    ReconcileJob(ReconcileConfig config, Supplier<Reconciler> reconcilers) {
        this.config = config;
        this.reconcilers = reconcilers;
    }

    /** The job as configured in the environment; call {@link #start()}. */
    public static ReconcileJob from(Env env, KafkaSettings kafka) {
        String projector = CountProjectorConfig.from(env).applicationId();
        return new ReconcileJob(ReconcileConfig.from(env), () -> new Reconciler(kafka, projector));
    }

    /** Schedules the runs, the first one interval from now; does nothing when the job is off. */
    public synchronized ReconcileJob start() {
        if (!config.enabled() || timer != null) {
            return this;
        }
        reconciler = reconcilers.get();
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tally-reconcile");
            t.setDaemon(true);
            return t;
        });
        long ms = config.interval().toMillis();
        timer.scheduleWithFixedDelay(this::runSafely, ms, ms, TimeUnit.MILLISECONDS);
        LOG.info("reconcile: every {}, {}", config.interval(), config.repair() ? "repairing" : "reporting only");
        return this;
    }

    private void runSafely() {
        try {
            runOnce();
        } catch (CancellationException e) {
            LOG.info("reconcile: run stopped, the job is closing");
        } catch (RuntimeException e) {
            LOG.warn("reconcile: run failed; next in {}", config.interval(), e);
        }
    }

    /** Stops a run between two polls when the job closes: the consumer then closes normally, not interrupted. */
    private void stopIfClosing(long events, long read, long total) {
        if (closing) {
            throw new CancellationException("reconcile job closing");
        }
    }

    /** One run: reconcile, log, repair if configured and safe. */
    Report runOnce() {
        boolean previousReflected = lastRepair.items().isEmpty() || reconciler.projected(lastRepair);
        if (previousReflected) {
            lastRepair = Repair.NONE;
        }
        Report report = reconciler.reconcile(this::stopIfClosing);
        if (report.drift() == 0) {
            LOG.info("reconcile: {}", report.summary());
            return report;
        }
        List<ItemDrift> drifting = report.drifting();
        LOG.warn("reconcile: {} in {} items: {}{}", report.summary(), drifting.size(),
                drifting.stream().limit(LOGGED_ITEMS).map(ItemDrift::line).toList(),
                drifting.size() > LOGGED_ITEMS ? " and " + (drifting.size() - LOGGED_ITEMS) + " more" : "");
        if (!config.repair()) {
            return report;
        }
        if (!previousReflected) {
            LOG.warn("reconcile: not repairing: the {} corrections of the previous repair are not yet in the views"
                    + " (is the count-projector running?)", lastRepair.items().size());
            return report;
        }
        lastRepair = reconciler.repair(report);
        LOG.warn("reconcile: repaired {} items", lastRepair.items().size());
        return report;
    }

    @Override
    public synchronized void close() {
        if (timer == null) {
            return;
        }
        closing = true;
        timer.shutdown();
        try {
            if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("reconcile: a run did not stop within 30 s; interrupting it");
                timer.shutdownNow();
                timer.awaitTermination(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            timer.shutdownNow();
            Thread.currentThread().interrupt();
        }
        reconciler.close();
        timer = null;
    }
}
