package dev.tally.launcher;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicScan;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.launcher.bench.EventLog;
import dev.tally.launcher.bench.ListsAudit;
import dev.tally.projector.rankings.RankingsConfig;
import dev.tally.schema.RankingLists;
import dev.tally.schema.RankingListsStatus;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./tally rankings rebuild|verify}: the live ranked lists, replayed under a policy or checked against the log. */
@Command(name = "rankings", mixinStandardHelpOptions = true,
        header = "Rebuilds the live ranked lists under a policy, or verifies them against the event log.",
        subcommands = {RankingsCommand.Rebuild.class, RankingsCommand.Verify.class})
final class RankingsCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("rankings: say rebuild or verify (./tally rankings --help)");
    }

    static RankingPolicy policy(String name) {
        try {
            return RankingPolicy.parse(name);
        } catch (IllegalArgumentException e) {
            throw new Env.ConfigException("--policy: " + e.getMessage());
        }
    }

    /**
     * Lists the policy in {@code tally.ranking-lists}, so every node starts its lists (a Streams application of its
     * own, which replays {@code tally.vote-events} from the start beside the live lists); waits until that
     * application has read the log as it stood when the rebuild began, then marks the lists live and serving
     * requests that name no policy. The lists of the policy that served before stay, for {@code &policy=}.
     */
    @Command(name = "rebuild", mixinStandardHelpOptions = true,
            header = "Replays the event log into ranked lists under a policy, then serves them by default.")
    static final class Rebuild implements Callable<Integer> {
        @Option(names = "--policy", required = true, paramLabel = "all|trusted|signed-in")
        String policy;

        @Option(names = "--timeout-seconds", defaultValue = "3600", paramLabel = "S",
                description = "give up waiting for the replay after S seconds [${DEFAULT-VALUE}]")
        long timeoutSeconds;

        @Mixin
        KafkaOption kafkaOption;

        @Override
        public Integer call() throws Exception {
            RankingPolicy chosen = policy(policy);
            Env env = kafkaOption.env();
            KafkaSettings kafka = kafkaOption.kafka();
            RankingsConfig config = RankingsConfig.from(env);
            String application = config.applicationId(chosen);
            String events = kafka.topic(Topics.VOTE_EVENTS).name();
            String listsTopic = kafka.topic(Topics.RANKING_LISTS).name();
            try (Admin admin = Admin.create(kafka.clientProps("tally-rankings-rebuild"));
                 var producer = new KafkaProducer<>(kafka.producerProps("tally-rankings-rebuild", Duration.ofSeconds(30)),
                         Topics.RANKING_LISTS.keySerde().serializer(), Topics.RANKING_LISTS.valueSerde().serializer())) {
                Map<TopicPartition, Long> end = EventLog.ends(admin, events);
                long total = end.values().stream().mapToLong(Long::longValue).sum();
                producer.send(new ProducerRecord<>(listsTopic, chosen.wireName(),
                        entry(chosen, RankingListsStatus.BUILDING, false))).get(30, TimeUnit.SECONDS);
                System.err.printf("rankings: replaying %,d offsets of %s into the lists of policy %s (application %s)%n",
                        total, events, chosen.wireName(), application);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
                long lastPrint = 0;
                while (true) {
                    var committed = EventLog.committed(admin, application, events);
                    if (EventLog.caughtUp(end, committed)) {
                        break;
                    }
                    long done = total - EventLog.behind(end, committed);
                    if (System.nanoTime() - deadline > 0) {
                        System.err.printf("rankings: the lists of %s read %,d of %,d offsets in %d s; is a node with"
                                + " TALLY_RANKED_LISTS on running? They keep building; run rebuild again to switch once"
                                + " they are done.%n", chosen.wireName(), done, total, timeoutSeconds);
                        return 1;
                    }
                    if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(5)) {
                        System.err.printf("rankings: %,d of %,d offsets replayed%n", done, total);
                        lastPrint = System.nanoTime();
                    }
                    Thread.sleep(500);
                }
                // first the new lists serve by default, then the others stop: there is never a moment with none
                producer.send(new ProducerRecord<>(listsTopic, chosen.wireName(), entry(chosen, RankingListsStatus.LIVE, true)))
                        .get(30, TimeUnit.SECONDS);
                for (RankingPolicy other : RankingPolicy.values()) {
                    if (other != chosen) {
                        var current = listed(kafka).get(other.wireName());
                        if (current != null && current.getServesDefault()) {
                            current.setServesDefault(false);
                            current.setChangedAt(Instant.now());
                            producer.send(new ProducerRecord<>(listsTopic, other.wireName(), current)).get(30, TimeUnit.SECONDS);
                        }
                    }
                }
            }
            System.out.printf("rankings: the lists of policy %s are live and answer requests that name no policy;"
                    + " the lists of the other kept policies answer &policy=%n", chosen.wireName());
            return 0;
        }

        private static RankingLists entry(RankingPolicy policy, RankingListsStatus status, boolean servesDefault) {
            return RankingLists.newBuilder().setPolicy(policy.wireName()).setVersion(policy.version()).setStatus(status)
                    .setServesDefault(servesDefault).setChangedAt(Instant.now()).build();
        }

        private static Map<String, RankingLists> listed(KafkaSettings kafka) {
            Map<String, RankingLists> out = new HashMap<>();
            TopicScan.readAll(kafka, Topics.RANKING_LISTS, r -> {
                if (r.value() == null) {
                    out.remove(r.key());
                } else {
                    out.put(r.key(), r.value());
                }
            });
            return out;
        }
    }

    /**
     * Folds the whole event log into every item's ranking under the policy, as the live lists do, and reads every
     * list of every item type from a node page by page; prints each list that differs, exit 1 when one does. Run it
     * while votes are quiet: an item that moves while it reads is reported.
     */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            header = "Recomputes every ranked list from the event log and compares it with a node's.")
    static final class Verify implements Callable<Integer> {
        @Option(names = "--policy", paramLabel = "all|trusted|signed-in",
                description = "the lists to check [TALLY_RANKING_POLICY, trusted]")
        String policy;

        @Option(names = "--url", paramLabel = "URL", description = "a node's HTTP address [http://127.0.0.1:$TALLY_HTTP_PORT, 8080]")
        String url;

        @Mixin
        KafkaOption kafkaOption;

        @Override
        public Integer call() throws Exception {
            Env env = kafkaOption.env();
            RankingsConfig config = RankingsConfig.from(env);
            RankingPolicy checked = policy == null ? config.policy() : policy(policy);
            String base = url != null ? url : "http://127.0.0.1:" + env.integer("TALLY_HTTP_PORT", 8080, 1, 65535);
            return ListsAudit.differing(kafkaOption.kafka(), base, checked, config.z(), System.out, System.err) == 0 ? 0 : 1;
        }
    }
}
