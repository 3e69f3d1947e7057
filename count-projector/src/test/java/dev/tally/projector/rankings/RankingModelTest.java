package dev.tally.projector.rankings;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.query.Scores;
import dev.tally.common.query.Unavailable;
import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.common.ranking.VoteModel;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.Namespace;
import dev.tally.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every ranked list of the live index against an independent model, over random vote histories of two item types
 * that run for days (votes cast, changed, retracted, reactions alone; weights and signed-in flags of every kind), read
 * page by page through cursors while the wall clock moves votes out of the windows. The model keeps each voter's
 * current vote per item and computes every list from scratch; the index must hold the same items in the same order
 * with the same keys.
 */
class RankingModelTest {
    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    private static final double Z = Scores.Z95;

    @TempDir
    Path stateDir;

    /** The model: every voter's current vote on every item, and each item's first event. */
    private final VoteModel model = new VoteModel();

    private final Map<Integer, IndexDb> indexes = new ConcurrentHashMap<>();
    private TopologyTestDriver driver;
    private TestInputTopic<String, VoteEvent> input;
    private Instant now = T0;

    private void open(RankingPolicy policy) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ranking-model-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(RankingTopology.build(Namespace.DEFAULT, policy, Z, indexes), props, now);
        var topic = Namespace.DEFAULT.topic(Topics.VOTE_EVENTS);
        input = driver.createInputTopic(topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    @ParameterizedTest
    @EnumSource(RankingPolicy.class)
    void everyListAgreesWithTheModelAsVotesComeAndWindowsExpire(RankingPolicy policy) throws Exception {
        SplittableRandom random = new SplittableRandom(policy.ordinal() * 31L + 7);
        open(policy);
        for (int step = 1; step <= 1_500; step++) {
            advance(Duration.ofSeconds(random.nextInt(0, 600)));
            vote(random, policy);
            if (step % 150 == 0) {
                advance(Duration.ofMinutes(random.nextInt(1, 180)));
                assertAgrees(policy);
            }
        }
        advance(Duration.ofDays(2)); // hours and the day window empty out, without a vote
        assertAgrees(policy);

        driver.close();
    }

    private void advance(Duration d) {
        now = now.plus(d);
        driver.advanceWallClockTime(d);
    }

    private void vote(SplittableRandom random, RankingPolicy policy) {
        String type = random.nextBoolean() ? "post" : "song";
        String item = type + ":" + type.charAt(0) + random.nextInt(25);
        input.pipeInput(item, model.next(random, item, "v" + random.nextInt(40), now), now);
    }

    private void assertAgrees(RankingPolicy policy) throws Unavailable {
        for (String type : List.of("post", "song")) {
            for (RankedList list : RankedList.values()) {
                List<OrderKey> expected = model(policy, type, list);
                assertThat(read(type, list, false)).as("%s %s under %s at %s", type, list, policy, now).isEqualTo(expected);
            }
            List<OrderKey> rising = model(policy, type, RankedList.TOP_HOUR).stream().filter(k -> k.key() > 0).toList();
            assertThat(read(type, RankedList.TOP_HOUR, true)).as("rising %s", type).isEqualTo(rising);
        }
    }

    /** The whole list, seven at a time, each page after the last item of the one before. */
    private List<OrderKey> read(String type, RankedList list, boolean aboveZero) throws Unavailable {
        List<OrderKey> all = new ArrayList<>();
        OrderKey after = null;
        while (true) {
            var page = RankingService.local(indexes, type, list, after, 7, aboveZero, List.of(0));
            for (RankingService.Row row : page.rows()) {
                all.add(row.place());
            }
            if (page.rows().size() < 7) {
                return all;
            }
            after = all.get(all.size() - 1);
        }
    }

    private List<OrderKey> model(RankingPolicy policy, String type, RankedList list) {
        List<OrderKey> out = new ArrayList<>();
        for (String item : model.items()) {
            if (item.startsWith(type + ":")) {
                double key = model.key(policy, item, list, now, Z);
                if (!Double.isNaN(key)) {
                    out.add(new OrderKey(key, item.substring(type.length() + 1)));
                }
            }
        }
        out.sort(Comparator.comparing((OrderKey k) -> k.key()).reversed().thenComparing(OrderKey::itemId));
        return out;
    }
}
