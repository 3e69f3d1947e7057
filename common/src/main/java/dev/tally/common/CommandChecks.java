package dev.tally.common;

import dev.tally.schemas.Topics;
import dev.tally.schema.CommandAction;
import dev.tally.schema.ItemState;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.ReactionType;
import dev.tally.schema.VoteCommand;
import java.util.Optional;
import java.util.function.Function;

/**
 * The checks of a command against the catalogue version, the item catalogue and the reaction registry.
 * The ingest API runs them on its copies of the compacted topics to refuse early; the vote-processor
 * runs them again on its global tables, authoritative for what raced past. Pure: lookups are passed in.
 *
 * @param catalogVersion {@code TALLY_CATALOG_VERSION}
 * @param requireCatalog {@code TALLY_REQUIRE_CATALOG}: unknown items are refused too
 */
public record CommandChecks(int catalogVersion, boolean requireCatalog) {

    /** A refusal with its detail. */
    public record Refusal(Rejection reason, String detail) {}

    public Optional<Refusal> check(VoteCommand c, Function<String, ItemStatus> catalog, Function<String, ReactionType> registry) {
        if (c.getCatalogVersion() != catalogVersion) {
            return refuse(Rejection.CATALOG_VERSION, "catalog_version " + c.getCatalogVersion()
                    + " is not the current version " + catalogVersion);
        }
        String itemKey = Topics.itemKey(c.getItemType(), c.getItemId());
        ItemStatus status = catalog.apply(itemKey);
        if (status == null ? requireCatalog : status.getStatus() == ItemState.DELETED) {
            return refuse(Rejection.ITEM_NOT_FOUND, "item " + itemKey + (status == null ? " is not in the catalogue" : " was deleted"));
        }
        if (status != null && status.getStatus() == ItemState.LOCKED) {
            return refuse(Rejection.ITEM_LOCKED, "item " + itemKey + " is locked: its votes are frozen");
        }
        if (c.getAction() == CommandAction.REACTION && c.getReaction() != null) {
            ReactionType type = registry.apply(c.getReaction());
            if (type == null) {
                return refuse(Rejection.UNKNOWN_REACTION, "'" + c.getReaction() + "' is not a reaction code");
            }
            if (!type.getActive()) {
                return refuse(Rejection.RETIRED_REACTION, "'" + c.getReaction() + "' has been retired");
            }
        }
        return Optional.empty();
    }

    private static Optional<Refusal> refuse(Rejection reason, String detail) {
        return Optional.of(new Refusal(reason, detail));
    }
}
