package dev.tally.ingest;

import dev.tally.common.VoterState;
import dev.tally.common.query.CountsQuery;
import dev.tally.common.query.ItemCountsView;
import dev.tally.common.query.Unavailable;
import dev.tally.common.query.VoterStateQuery;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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
 * vote-processor's store. Every answer names the log position it reflects in {@value #POSITION_HEADER}.
 */
final class ReadHandler {
    static final String POSITION_HEADER = "Tally-Position";
    private static final int MAX_BATCH = 100;

    private final Identities identities;
    private final CountsQuery counts;
    private final VoterStateQuery voterStates;

    ReadHandler(Identities identities, CountsQuery counts, VoterStateQuery voterStates) {
        this.identities = identities;
        this.counts = counts;
        this.voterStates = voterStates;
    }

    void item(Context ctx) {
        String itemType = itemType(ctx.pathParam("itemType"));
        String itemId = itemId(ctx.pathParam("itemId"));
        ItemCountsView view = read(itemType, itemId);
        Map<String, Object> body = itemJson(view, identities.voter(ctx));
        String etag = "\"" + sha256(body.toString()).substring(0, 32) + "\"";
        ctx.header("ETag", etag);
        ctx.header("Cache-Control", "no-cache");
        ctx.header(POSITION_HEADER, view.position());
        if (etag.equals(ctx.header("If-None-Match"))) {
            ctx.status(304);
            return;
        }
        ctx.json(body);
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
        Optional<String> voter = identities.voter(ctx);
        List<Map<String, Object>> items = new ArrayList<>();
        List<String> positions = new ArrayList<>();
        for (String id : split) {
            ItemCountsView view = read(itemType, itemId(id));
            positions.add(view.position());
            items.add(itemJson(view, voter));
        }
        ctx.header(POSITION_HEADER, String.join(";", positions));
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

    private ItemCountsView read(String itemType, String itemId) {
        try {
            return counts.counts(itemType, itemId);
        } catch (Unavailable e) {
            throw ApiProblem.unavailable("view-unavailable", "counts are not available right now (" + e.getMessage() + ")");
        }
    }

    private Map<String, Object> itemJson(ItemCountsView view, Optional<String> voter) {
        VoterState mine = VoterState.NONE;
        if (voter.isPresent()) {
            try {
                mine = voterStates.state(voter.get(), view.itemType(), view.itemId());
            } catch (Unavailable e) {
                throw ApiProblem.unavailable("view-unavailable", "your vote state is not available right now");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("item_type", view.itemType());
        out.put("item_id", view.itemId());
        out.putAll(countsJson(view));
        out.put("user_vote", mine.vote());
        out.put("user_reaction", mine.reaction());
        return out;
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
