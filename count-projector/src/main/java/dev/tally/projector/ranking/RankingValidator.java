package dev.tally.projector.ranking;

import dev.tally.schema.RankedItem;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Decides whether an artifact may be served: a stale or malformed leaderboard is worse than
 * none, so anything odd is refused and the reader falls back to "being updated". The clock is checked in
 * both directions: older than the maximum age is stale, and more than an hour in the future means the
 * generator's clock is wrong.
 */
public final class RankingValidator {
    /** The contract's item type and item id. */
    public static final Pattern ITEM_TYPE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    public static final Pattern ITEM_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    static final Duration MAX_FUTURE = Duration.ofHours(1);

    private final Duration maxAge;

    /** @param maxAge how old an artifact may be; the job uses three intervals, so one missed run is harmless */
    public RankingValidator(Duration maxAge) {
        if (maxAge == null || maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("ranking max age must be positive, was " + maxAge);
        }
        this.maxAge = maxAge;
    }

    public boolean servable(RankingArtifact artifact, Instant now) {
        return problems(artifact, now).isEmpty();
    }

    /** Every reason the artifact may not be served, each naming the field at fault; empty when servable. */
    public List<String> problems(RankingArtifact artifact, Instant now) {
        List<String> problems = new ArrayList<>();
        if (artifact == null) {
            return List.of("no artifact");
        }
        if (artifact.getSchemaVersion() != Rankings.SCHEMA_VERSION) {
            problems.add("schema_version is " + artifact.getSchemaVersion() + ", expected " + Rankings.SCHEMA_VERSION);
        }
        String type = artifact.getItemType();
        if (type == null || !ITEM_TYPE.matcher(type).matches()) {
            problems.add("item_type '" + type + "' does not match " + ITEM_TYPE);
        }
        checkClock(artifact.getGeneratedAt(), now, problems);
        List<RankedItem> items = artifact.getItems() == null ? List.of() : artifact.getItems();
        checkStatus(artifact.getStatus(), items.size(), problems);
        for (int i = 0; i < items.size(); i++) {
            checkItem(items.get(i), i + 1, type, problems);
        }
        return problems;
    }

    private void checkClock(Instant generatedAt, Instant now, List<String> problems) {
        if (generatedAt == null) {
            problems.add("generated_at is missing");
        } else if (Duration.between(generatedAt, now).compareTo(maxAge) > 0) {
            problems.add("generated_at " + generatedAt + " is stale: older than " + maxAge + " at " + now);
        } else if (Duration.between(now, generatedAt).compareTo(MAX_FUTURE) > 0) {
            problems.add("generated_at " + generatedAt + " is more than " + MAX_FUTURE + " in the future at " + now);
        }
    }

    private static void checkStatus(RankingStatus status, int size, List<String> problems) {
        if (status == null) {
            problems.add("status is missing");
        } else if (status == RankingStatus.READY && (size < Rankings.MIN_ITEMS || size > Rankings.MAX_ITEMS)) {
            problems.add("status READY with " + size + " items, expected " + Rankings.MIN_ITEMS + " to " + Rankings.MAX_ITEMS);
        } else if (status == RankingStatus.INSUFFICIENT_DATA && size != 0) {
            problems.add("status INSUFFICIENT_DATA with " + size + " items, expected none");
        }
    }

    private static void checkItem(RankedItem item, int expectedRank, String type, List<String> problems) {
        if (item == null) {
            problems.add("item " + expectedRank + " is missing");
            return;
        }
        String where = "item " + expectedRank + " (" + item.getItemType() + ":" + item.getItemId() + ")";
        if (item.getRank() != expectedRank) {
            problems.add(where + " has rank " + item.getRank() + ", expected " + expectedRank);
        }
        if (item.getItemType() == null || !item.getItemType().equals(type)) {
            problems.add(where + " is not of the artifact's type '" + type + "'");
        }
        if (item.getItemId() == null || !ITEM_ID.matcher(item.getItemId()).matches()) {
            problems.add(where + " has an id that does not match " + ITEM_ID);
        }
        if (item.getUp() < 0 || item.getDown() < 0) {
            problems.add(where + " has negative counts");
        }
        if (!(item.getWilson() >= 0 && item.getWilson() <= 1)) { // also refuses NaN, which is not JSON
            problems.add(where + " has wilson " + item.getWilson() + ", expected 0 to 1");
        }
    }
}
