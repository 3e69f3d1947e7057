package dev.tally.fraud;

import dev.tally.schemas.ItemKey;
import dev.tally.schemas.FlagKey;
import dev.tally.schema.FlagKind;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.NetworkActivity;
import dev.tally.schema.VoteCommand;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per hashed network (commands repartitioned by network): more than {@code clusterVoters} distinct voters
 * within {@code clusterWindow} raises a challenge flag ({@code net:<hash>}); over the daily quota per
 * network ({@code netday:<hash>}) or per network and item ({@code netitem:<hash>:<type>:<id>}) raises a
 * quota flag until UTC midnight. Time is the command's {@code received_at}.
 */
final class NetworkWatch extends ContextualProcessor<String, VoteCommand, String, FraudFlag> {
    private static final long DAY_MS = 86_400_000L;
    private final FraudDetectorConfig config;
    private KeyValueStore<String, NetworkActivity> store;

    NetworkWatch(FraudDetectorConfig config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<String, FraudFlag> context) {
        super.init(context);
        store = context.getStateStore(FraudTopology.NETWORK_STORE);
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
        Map<String, Long> voters = new HashMap<>();
        long windowMs = config.clusterWindow().toMillis();
        a.getVoters().forEach((v, t) -> {
            if (t > now - windowMs) {
                voters.put(v, t);
            }
        });
        voters.put(c.getVoter(), now);
        a.setVoters(voters);
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
            a.setItemDayCounts(new HashMap<>());
        }
        long midnight = (today + 1L) * DAY_MS;
        a.setDayCount(a.getDayCount() + 1);
        if (a.getDayCount() == config.networkDailyLimit() + 1) {
            flag(FlagKey.networkDay(network).toString(), FlagKind.QUOTA, "over " + config.networkDailyLimit() + " votes today", now, midnight);
        }
        ItemKey itemKey = new ItemKey(c.getItemType(), c.getItemId());
        String item = itemKey.toString();
        Map<String, Integer> perItem = new HashMap<>(a.getItemDayCounts());
        int n = perItem.merge(item, 1, Integer::sum);
        a.setItemDayCounts(perItem);
        if (n == config.networkItemDailyLimit() + 1) {
            flag(FlagKey.networkItem(network, itemKey).toString(), FlagKind.QUOTA, "over " + config.networkItemDailyLimit()
                    + " votes on one item today", now, midnight);
        }
        store.put(network, a);
    }

    private void flag(String key, FlagKind kind, String reason, long now, long until) {
        context().forward(new Record<>(key, new FraudFlag(key, kind, reason, Instant.ofEpochMilli(now),
                Instant.ofEpochMilli(until)), now));
    }
}
