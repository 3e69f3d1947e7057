package dev.tally.projector.reconcile;

import dev.tally.common.Env;
import java.time.Duration;

/**
 * @param interval {@code TALLY_RECONCILE_INTERVAL} [unset: off]: time between the end of one scheduled
 *                 reconcile and the start of the next; {@code 0} (or unset) turns the job off
 * @param repair   {@code TALLY_RECONCILE_REPAIR} [false]: whether a scheduled run writes corrections or
 *                 only reports drift
 */
public record ReconcileConfig(Duration interval, boolean repair) {
    public static ReconcileConfig from(Env env) {
        boolean off = env.get("TALLY_RECONCILE_INTERVAL").map("0"::equals).orElse(true);
        Duration interval = off ? Duration.ZERO : env.duration("TALLY_RECONCILE_INTERVAL", Duration.ZERO);
        return new ReconcileConfig(interval, env.bool("TALLY_RECONCILE_REPAIR", false));
    }

    public boolean enabled() {
        return !interval.isZero();
    }
}
