package dev.tally.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When each vote was cast, as the events tell it: {@code before_cast_at} is when the vote an event replaces was
 * cast, and the vote after it was cast at the event's {@code received_at} when it differs from the vote before,
 * else at {@code before_cast_at} — so a consumer can place every vote in time (a trailing window) from the events
 * alone. A reaction does not recast the vote; a retraction leaves no vote and no time. Each event also carries
 * whether its voter was signed in, as the command said.
 */
class CastTimesTest {
    private static final Instant T1 = Instant.parse("2026-12-01T10:00:00Z");
    private final ProcessorDriver p = new ProcessorDriver();

    @AfterEach
    void tearDown() {
        p.close();
    }

    private VoteEvent send(VoteCommand c, Instant at) {
        c.setReceivedAt(at);
        p.send(c);
        List<VoteEvent> events = new ArrayList<>(p.events.readValuesToList());
        assertThat(events).hasSize(1);
        return events.get(0);
    }

    @Test
    void eachEventSaysWhenTheVoteItReplacesWasCast() {
        VoteEvent up = send(ProcessorDriver.vote("u", "p", 1, VoteMode.TOGGLE), T1);
        assertThat(up.getBeforeCastAt()).as("no vote before").isNull();

        VoteEvent like = send(ProcessorDriver.reaction("u", "p", "like", VoteMode.TOGGLE), T1.plusSeconds(60));
        assertThat(like.getBefore().getVote()).isEqualTo(like.getAfter().getVote());
        assertThat(like.getBeforeCastAt()).as("the up-vote's time").isEqualTo(T1);

        VoteEvent down = send(ProcessorDriver.vote("u", "p", -1, VoteMode.SET), T1.plusSeconds(120));
        assertThat(down.getBeforeCastAt()).as("a reaction did not recast the up-vote").isEqualTo(T1);

        VoteEvent retract = send(ProcessorDriver.vote("u", "p", -1, VoteMode.TOGGLE), T1.plusSeconds(180));
        assertThat(retract.getAfter().getVote()).isZero();
        assertThat(retract.getBeforeCastAt()).as("the down-vote's time").isEqualTo(T1.plusSeconds(120));

        VoteEvent again = send(ProcessorDriver.vote("u", "p", 1, VoteMode.TOGGLE), T1.plusSeconds(240));
        assertThat(again.getBeforeCastAt()).as("a retraction leaves no vote and no time").isNull();
    }

    @Test
    void theEventSaysWhetherItsVoterWasSignedInAsTheCommandDid() {
        VoteCommand cookie = ProcessorDriver.vote("a", "p", 1, VoteMode.SET);
        cookie.setAnonymous(true);
        VoteCommand account = ProcessorDriver.vote("b", "p", 1, VoteMode.SET);
        account.setAnonymous(false);

        assertThat(send(cookie, T1).getAnonymous()).isTrue();
        assertThat(send(account, T1).getAnonymous()).isFalse();
        assertThat(send(ProcessorDriver.vote("c", "p", 1, VoteMode.SET), T1).getAnonymous()).as("not told").isNull();

        VoteCommand like = ProcessorDriver.reaction("a", "p", "like", VoteMode.SET);
        like.setAnonymous(true);
        VoteEvent liked = send(like, T1.plusSeconds(1));
        assertThat(liked.getBeforeAnonymous()).as("the flag of the command that cast the up-vote").isTrue();
        VoteCommand down = ProcessorDriver.vote("a", "p", -1, VoteMode.SET);
        down.setAnonymous(true);
        assertThat(send(down, T1.plusSeconds(2)).getBeforeAnonymous()).as("a reaction did not recast it").isTrue();
    }

    @Test
    void aVoteStoredBeforeCastTimesWereKeptHasNone() {
        p.driver.<String, dev.tally.schema.VoterItem>getKeyValueStore(VoteTopology.VOTER_ITEM_STORE)
                .put(VoterItems.key("old", "post", "p"), new dev.tally.schema.VoterItem(1, null, 1.0, 7L, null, null, null));

        VoteEvent down = send(ProcessorDriver.vote("old", "p", -1, VoteMode.SET), T1);
        assertThat(down.getBefore().getVote()).isEqualTo(1);
        assertThat(down.getBeforeCastAt()).isNull();
        assertThat(send(ProcessorDriver.vote("old", "p", 1, VoteMode.SET), T1.plusSeconds(1)).getBeforeCastAt()).isEqualTo(T1);
    }
}
