package dev.tally.fraud;

import dev.tally.common.StorePurge;
import dev.tally.schemas.ItemKey;
import dev.tally.schemas.FlagKey;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.NetworkActivity;
import dev.tally.schema.VoteCommand;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per hashed network ({@code tally.network-commands}, keyed by network): more than {@code clusterVoters} distinct
 * voters within {@code clusterWindow} raises a challenge flag ({@code net:<hash>}); over the daily quota per
 * network ({@code netday:<hash>}) or per network and item ({@code netitem:<hash>:<type>:<id>}) raises a
 * quota flag until UTC midnight. Time is the command's {@code received_at}.
 *
 * <p>What a network's record ({@value FraudTopology#NETWORK_STORE}) holds stays bounded however busy the network:
 * the window keeps only the {@code clusterVoters + 1} latest voters — exactly as good for the rule, since an
 * evicted voter is older than every kept one and leaves the window first — and the day's per-item counts stop
 * growing once the network is over its daily quota (the {@code netday} flag then refuses all its votes until
 * midnight, so a per-item flag could add nothing), so they hold at most {@code networkDailyLimit} items.
 * Network hashes change every UTC day, so an hourly wall-clock purge deletes the records of days before
 * yesterday: the store holds about two days of networks, not every network ever seen.
 */
final class NetworkWatch extends ContextualProcessor<String, VoteCommand, String, FraudFlag> {
    private static final long DAY_MS = 86_400_000L;
    private static final Duration PURGE_INTERVAL = Duration.ofHours(1);
    private final FraudDetectorConfig config;
    private KeyValueStore<String, NetworkActivity> store;

    NetworkWatch(FraudDetectorConfig config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<String, FraudFlag> context) {
        super.init(context);
        store = context.getStateStore(FraudTopology.NETWORK_STORE);
        context.schedule(PURGE_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::purge);
    }

    @Override
    public void process(Record<String, VoteCommand> record) {
        VoteCommand c = record.value();
        String network = record.key();
        if (c == null || network == null) {
            return;
        }
        long now = c.getReceivedAt().toEpochMilli();
        NetworkActivity a = store.get(network);
        if (a == null) {
            a = new NetworkActivity(new HashMap<>(), 0, 0, new HashMap<>(), 0L);
        }
        Map<String, Long> voters = a.getVoters(); // decoded afresh on every read: ours to change
        long windowStart = now - config.clusterWindow().toMillis();
        voters.values().removeIf(t -> t <= windowStart);
        voters.put(c.getVoter(), now);
        if (voters.size() > config.clusterVoters() + 1) {
            voters.entrySet().stream().min(Map.Entry.comparingByValue()).map(Map.Entry::getKey).ifPresent(voters::remove);
        }
        if (voters.size() > config.clusterVoters() && a.getChallengeUntil() <= now) {
            long until = now + config.challengeFor().toMillis();
            a.setChallengeUntil(until);
            flag(FlagKey.challenge(network).toString(), FlagKind.CHALLENGE, voters.size() + " voters within "
                    + config.clusterWindow().toSeconds() + " s", now, until);
        }
        int today = (int) Math.floorDiv(now, DAY_MS);
        if (a.getDay() != today) {
            a.setDay(today);
            a.setDayCount(0);
            a.getItemDayCounts().clear();
        }
        long midnight = (today + 1L) * DAY_MS;
        a.setDayCount(a.getDayCount() + 1);
        if (a.getDayCount() == config.networkDailyLimit() + 1) {
            flag(FlagKey.networkDay(network).toString(), FlagKind.QUOTA, "over " + config.networkDailyLimit() + " votes today", now, midnight);
            a.getItemDayCounts().clear(); // over its quota for the day: no per-item flag can add anything
        }
        if (a.getDayCount() <= config.networkDailyLimit()) {
            ItemKey itemKey = new ItemKey(c.getItemType(), c.getItemId());
            int n = a.getItemDayCounts().merge(itemKey.toString(), 1, Integer::sum);
            if (n == config.networkItemDailyLimit() + 1) {
                flag(FlagKey.networkItem(network, itemKey).toString(), FlagKind.QUOTA, "over "
                        + config.networkItemDailyLimit() + " votes on one item today", now, midnight);
            }
        }
        store.put(network, a);
    }

    /** Deletes every network record of a day before yesterday (wall clock) whose challenge is over. */
    private void purge(long wallClockMs) {
        int yesterday = (int) Math.floorDiv(wallClockMs, DAY_MS) - 1;
        StorePurge.deleteWhere(store, a -> a.getDay() < yesterday && a.getChallengeUntil() <= wallClockMs);
    }

    private void flag(String key, FlagKind kind, String reason, long now, long until) {
        context().forward(new Record<>(key, new FraudFlag(key, kind, reason, Instant.ofEpochMilli(now),
                Instant.ofEpochMilli(until)), now));
    }
}
