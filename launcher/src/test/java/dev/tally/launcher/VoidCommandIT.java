package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.common.TopicScan;
import dev.tally.schema.VoteEvent;
import dev.tally.schemas.Topics;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code ./tally void --voter HASH}: every vote and reaction of one voter is retracted through the normal
 * path — as events in the log, so the counts drop by exactly that voter's share — while another voter's
 * votes on the same items stay.
 */
class VoidCommandIT {
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final List<String> items = List.of("void-a-" + run, "void-b-" + run, "void-c-" + run);

    @Test
    void retractsOneVotersVotesAndReactionsAndNothingElse() throws Exception {
        TallyNode node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
        try {
            TallyClient client = new TallyClient(node.httpPort());
            String troll = "troll-" + run;
            for (String item : items) {
                assertThat(client.vote(troll, item, 1, "set").status()).isEqualTo(200);
                assertThat(client.vote("bystander-" + run, item, -1, "set").status()).isEqualTo(200);
            }
            assertThat(client.vote(troll, "{\"item_type\":\"post\",\"item_id\":\"" + items.get(0)
                    + "\",\"reaction\":\"love\"}").status()).isEqualTo(200);

            String hash = voterHash(node, items.get(0), troll);
            String out = voidCli("--voter", hash, "--bootstrap", SharedBroker.get().bootstrap());
            assertThat(out).contains("retracted 3 votes and 1 reactions of voter " + hash);

            for (String item : items) {
                var after = client.awaitItem(null, item, b -> b.get("upvotes").asLong() == 0
                        && b.path("reactions").path("love").asLong(0) == 0, Duration.ofSeconds(30));
                assertThat(after.body().get("upvotes").asLong()).as("the troll's upvote on %s is gone", item).isZero();
                assertThat(after.body().get("downvotes").asLong()).as("the bystander's vote stays").isEqualTo(1);
                assertThat(after.body().path("reactions").path("love").asLong(0)).isZero();
            }
            assertThat(client.get(troll, "/v1/votes/post/" + items.get(1)).body().get("user_vote").asInt())
                    .as("the troll's own state says so too").isZero();
            assertThat(retractionEvents(node, hash)).as("each retraction is an event in the log").isEqualTo(4);
        } finally {
            node.close();
        }
    }

    /** The hashed voter behind {@code user}, read from the log: the only one who reacted to {@code item}. */
    private static String voterHash(TallyNode node, String item, String user) throws InterruptedException {
        Set<String> reacted = new HashSet<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (reacted.isEmpty() && System.nanoTime() < deadline) {
            TopicScan.readAll(node.runtime().kafka(), Topics.VOTE_EVENTS, r -> {
                VoteEvent e = r.value();
                if (e != null && e.getItemId().equals(item) && e.getAfter().getReaction() != null) {
                    reacted.add(e.getVoter());
                }
            });
            Thread.sleep(100);
        }
        assertThat(reacted).as("the voter behind %s", user).hasSize(1);
        return reacted.iterator().next();
    }

    /** Events of {@code hash} on this run's items that took a vote or a reaction away. */
    private long retractionEvents(TallyNode node, String hash) {
        long[] n = {0};
        TopicScan.readAll(node.runtime().kafka(), Topics.VOTE_EVENTS, r -> {
            VoteEvent e = r.value();
            if (e != null && hash.equals(e.getVoter()) && items.contains(e.getItemId())
                    && (e.getAfter().getVote() == 0 && e.getBefore().getVote() != 0
                    || e.getAfter().getReaction() == null && e.getBefore().getReaction() != null)) {
                n[0]++;
            }
        });
        return n[0];
    }

    private static String voidCli(String... args) {
        CliRun.Output out = CliRun.run(new VoidCommand(), args);
        assertThat(out.exit()).isZero();
        return out.text();
    }
}
