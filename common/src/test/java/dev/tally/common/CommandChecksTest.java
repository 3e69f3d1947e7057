package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.CommandAction;
import dev.tally.schema.ItemState;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A command against the catalogue version, the item catalogue and the reaction registry, check by check in order. */
class CommandChecksTest {
    static {
        dev.tally.schemas.AvroSerde.of(VoteCommand.class); // its serde trusts Tally's records, whose builders Avro checks
    }

    private static final Map<String, ItemStatus> CATALOG = Map.of(
            "post:live", status("live", ItemState.ACTIVE),
            "post:gone", status("gone", ItemState.DELETED),
            "post:frozen", status("frozen", ItemState.LOCKED));
    private static final Map<String, ReactionType> REGISTRY = Map.of(
            "tada", ReactionType.newBuilder().setCode("tada").setLabel("Party").setActive(true).build(),
            "meh", ReactionType.newBuilder().setCode("meh").setLabel("Meh").setActive(false).build());

    private static Optional<String> check(CommandChecks checks, VoteCommand c) {
        return checks.check(c, CATALOG::get, REGISTRY::get).map(r -> r.reason().slug + ": " + r.detail());
    }

    @Test
    void anOpenCatalogueTakesUnknownItemsAndRefusesDeletedAndLockedOnes() {
        CommandChecks open = new CommandChecks(3, false);
        assertThat(check(open, vote("live", 3))).isEmpty();
        assertThat(check(open, vote("unlisted", 3))).isEmpty();
        assertThat(check(open, vote("gone", 3))).contains("item-not-found: item post:gone was deleted");
        assertThat(check(open, vote("frozen", 3))).contains("item-locked: item post:frozen is locked: its votes are frozen");
    }

    @Test
    void aRequiredCatalogueRefusesItemsItDoesNotList() {
        CommandChecks required = new CommandChecks(3, true);
        assertThat(check(required, vote("unlisted", 3))).contains("item-not-found: item post:unlisted is not in the catalogue");
        assertThat(check(required, vote("live", 3))).isEmpty();
        assertThat(check(required, vote("gone", 3))).contains("item-not-found: item post:gone was deleted");
    }

    @Test
    void anotherCatalogueVersionIsRefusedBeforeAnythingElse() {
        CommandChecks checks = new CommandChecks(3, true);
        assertThat(check(checks, vote("unlisted", 2))).contains("catalog-version: catalog_version 2 is not the current version 3");
        assertThat(check(checks, vote("live", 4))).contains("catalog-version: catalog_version 4 is not the current version 3");
    }

    @Test
    void aReactionMustBeKnownAndActiveAndARemovalOfAllIsNotLookedUp() {
        CommandChecks checks = new CommandChecks(1, false);
        assertThat(check(checks, reaction("tada"))).isEmpty();
        assertThat(check(checks, reaction("nope"))).contains("unknown-reaction: 'nope' is not a reaction code");
        assertThat(check(checks, reaction("meh"))).contains("retired-reaction: 'meh' has been retired");
        assertThat(check(checks, reaction(null))).isEmpty();
        assertThat(check(checks, VoteCommand.newBuilder(vote("live", 1)).setReaction("nope").build()))
                .as("a vote's reaction field is not a reaction").isEmpty();
    }

    private static VoteCommand vote(String item, int catalogVersion) {
        return VoteCommand.newBuilder().setCommandId("c1").setVoter("u1").setItemType("post").setItemId(item)
                .setAction(CommandAction.VOTE).setVoteValue(1).setCatalogVersion(catalogVersion)
                .setReceivedAt(Instant.parse("2026-12-07T10:00:00Z")).build();
    }

    private static VoteCommand reaction(String code) {
        return VoteCommand.newBuilder(vote("live", 1)).setAction(CommandAction.REACTION).setReaction(code).build();
    }

    private static ItemStatus status(String id, ItemState state) {
        return ItemStatus.newBuilder().setItemType("post").setItemId(id).setStatus(state).build();
    }
}
