package dev.tally.ingest;

import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.Unavailable;
import dev.tally.common.query.VoterStateQuery;
import dev.tally.common.query.VoterStateView;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code GET /v1/votes/{type}/{id}} (with ETag) and {@code GET /v1/votes/{type}?ids=} (up to 100, in
 * request order): counts from the count-projector's view, the caller's own state from the
 * vote-processor's store. Every answer names the log position it reflects in {@value #POSITION_HEADER}
 * and says {@value #STALE_HEADER}{@code : true} when a standby answered or the wait below ran out.
 *
 * <p>Read-your-writes: the voter's state carries the offset of their last change on the item; the
 * counts are read again (bounded by {@code TALLY_SYNC_TIMEOUT}) until the view reflects it, so a GET
 * right after a 200 POST shows that vote on any instance.
 */
final class ReadHandler {
    static final String POSITION_HEADER = "Tally-Position";
    static final String STALE_HEADER = "Tally-Stale";
    private static final int MAX_BATCH = 100;

    private final Identities identities;
    private final CountsQuery counts;
    private final VoterStateQuery voterStates;
    private final Duration readYourWritesWait;

    ReadHandler(Identities identities, CountsQuery counts, VoterStateQuery voterStates, Duration readYourWritesWait) {
        this.identities = identities;
        this.counts = counts;
        this.voterStates = voterStates;
        this.readYourWritesWait = readYourWritesWait;
    }

    /** One item as the caller should see it: counts that reflect the caller's own last change. */
    private record Answer(Map<String, Object> body, String position, boolean stale) {}

    void item(Context ctx) {
        Answer answer = answer(itemType(ctx.pathParam("itemType")), itemId(ctx.pathParam("itemId")),
                identities.voter(ctx).map(Identities.Voter::hash));
        String etag = "\"" + sha256(answer.body().toString()).substring(0, 32) + "\"";
        ctx.header("ETag", etag);
        ctx.header("Cache-Control", "no-cache");
        ctx.header(POSITION_HEADER, answer.position());
        if (answer.stale()) {
            ctx.header(STALE_HEADER, "true");
        }
        if (etag.equals(ctx.header("If-None-Match"))) {
            ctx.status(304);
            return;
        }
        ctx.json(answer.body());
    }

    void batch(Context ctx) {
        String itemType = itemType(ctx.pathParam("itemType"));
        String ids = ctx.queryParam("ids");
        if (ids == null || ids.isEmpty()) {
            throw ApiProblem.invalid("query parameter 'ids' is required: ?ids=a,b,c");
        }
        String[] split = ids.split(",", -1);
        if (split.length > MAX_BATCH) {
            throw ApiProblem.invalid("at most " + MAX_BATCH + " ids per request, got " + split.length);
        }
        Optional<String> voter = identities.voter(ctx).map(Identities.Voter::hash);
        List<Map<String, Object>> items = new ArrayList<>();
        List<String> positions = new ArrayList<>();
        boolean stale = false;
        for (String id : split) {
            Answer answer = answer(itemType, itemId(id), voter);
            positions.add(answer.position());
            items.add(answer.body());
            stale |= answer.stale();
        }
        ctx.header(POSITION_HEADER, String.join(";", positions));
        if (stale) {
            ctx.header(STALE_HEADER, "true");
        }
        ctx.json(Map.of("items", items));
    }

    private static String itemType(String itemType) {
        if (!VoteRequest.ITEM_TYPE.matcher(itemType).matches()) {
            throw ApiProblem.invalid("item type must match [a-z][a-z0-9_-]{0,31}");
        }
        return itemType;
    }

    private static String itemId(String itemId) {
        if (!VoteRequest.ITEM_ID.matcher(itemId).matches()) {
            throw ApiProblem.invalid("item id '" + VoteRequest.printable(itemId) + "' must match [A-Za-z0-9._:-]{1,64}");
        }
        return itemId;
    }

    private Answer answer(String itemType, String itemId, Optional<String> voter) {
        VoterStateView mine = null;
        if (voter.isPresent()) {
            try {
                mine = voterStates.state(voter.get(), itemType, itemId);
            } catch (Unavailable e) {
                throw ApiProblem.unavailable("view-unavailable", "your vote state is not available right now (" + e.getMessage() + ")");
            }
        }
        ItemCountsView view = read(itemType, itemId);
        boolean behind = mine != null && mine.offset() >= 0 && !view.reflects(mine.partition(), mine.offset());
        long deadline = System.nanoTime() + readYourWritesWait.toNanos();
        while (behind && System.nanoTime() < deadline) {
            sleep();
            view = read(itemType, itemId);
            behind = !view.reflects(mine.partition(), mine.offset());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("item_type", itemType);
        out.put("item_id", itemId);
        out.putAll(countsJson(view));
        out.put("user_vote", mine == null ? 0 : mine.vote());
        out.put("user_reaction", mine == null ? null : mine.reaction());
        return new Answer(out, view.position(), behind || view.stale() || (mine != null && mine.stale()));
    }

    private ItemCountsView read(String itemType, String itemId) {
        try {
            return counts.counts(itemType, itemId);
        } catch (Unavailable e) {
            throw ApiProblem.unavailable("view-unavailable", "counts are not available right now (" + e.getMessage() + ")");
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Map<String, Object> countsJson(ItemCountsView view) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("upvotes", view.upvotes());
        out.put("downvotes", view.downvotes());
        out.put("score", view.score());
        out.put("reactions", new TreeMap<>(view.reactions()));
        out.put("weighted_score", round(view.weightedScore()));
        out.put("wilson", round(view.wilson()));
        out.put("hot", round(view.hot()));
        return out;
    }

    private static double round(double x) {
        return Math.round(x * 1e6) / 1e6;
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
