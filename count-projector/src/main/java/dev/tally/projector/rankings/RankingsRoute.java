package dev.tally.projector.rankings;

import dev.tally.common.query.Unavailable;
import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingCursor;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.common.ranking.RankingSort;
import dev.tally.common.ranking.RankingWindow;
import dev.tally.projector.ranking.RankingValidator;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code GET /v1/rankings/{item_type}?sort=&window=&policy=&limit=&cursor=}: a page of one ranked list, read from the
 * live indexes of the policy asked for (the node's own by default). {@code Tally-Position} names, per partition of
 * {@code tally.vote-events}, how many of its events the page reflects.
 */
public final class RankingsRoute {
    public static final String PATH = "/v1/rankings/{itemType}";
    static final int DEFAULT_LIMIT = 25;
    static final int MAX_LIMIT = 100;

    /** The node's lists; null when it keeps none ({@code TALLY_RANKED_LISTS=false}). */
    private final RankedLists lists;

    private RankingsRoute(RankedLists lists) {
        this.lists = lists;
    }

    /** Mounts the route over the node's lists (null: it keeps none, and every request is 404). */
    public static void mount(RoutesConfig routes, RankedLists lists) {
        routes.get(PATH, new RankingsRoute(lists)::page);
    }

    private void page(Context ctx) {
        String itemType = ctx.pathParam("itemType");
        RankingSort sort;
        RankingWindow window;
        RankingPolicy policy;
        int limit;
        RankingCursor cursor;
        try {
            if (!RankingValidator.ITEM_TYPE.matcher(itemType).matches()) {
                throw new IllegalArgumentException("item type must match " + RankingValidator.ITEM_TYPE);
            }
            sort = RankingSort.parse(ctx.queryParamMap().containsKey("sort") ? ctx.queryParam("sort") : "hot");
            window = sort.window(ctx.queryParam("window"));
            String named = ctx.queryParam("policy");
            policy = named != null ? RankingPolicy.parse(named) : lists != null ? lists.defaultPolicy() : RankingPolicy.TRUSTED;
            limit = limit(ctx.queryParam("limit"));
            String text = ctx.queryParam("cursor");
            cursor = text == null ? null : RankingCursor.parse(text, sort, window, policy);
        } catch (IllegalArgumentException e) {
            problem(ctx, 400, "invalid-request", "Invalid request", e.getMessage());
            return;
        }
        RankingService service = lists == null ? null : lists.get(policy).orElse(null);
        if (service == null) {
            problem(ctx, 404, "policy-not-built", "No lists under this policy", lists == null
                    ? "this node keeps no ranked lists (TALLY_RANKED_LISTS=false)"
                    : "this node keeps the lists of policy " + lists.policies().stream().map(RankingPolicy::wireName)
                            .sorted().collect(Collectors.joining(", ")) + ", not " + policy.wireName()
                            + "; build them with: ./tally rankings rebuild --policy " + policy.wireName());
            return;
        }
        RankingService.Page page;
        try {
            page = service.page(itemType, RankedList.of(sort, window), cursor == null ? null : cursor.after(), limit + 1,
                    sort == RankingSort.RISING);
        } catch (Unavailable e) {
            ctx.header("Retry-After", "1");
            problem(ctx, 503, "view-unavailable", "Rankings unavailable", "rankings are not available right now (" + e.getMessage() + ")");
            return;
        }
        int before = cursor == null ? 0 : cursor.rank();
        List<Map<String, Object>> items = new ArrayList<>();
        OrderKey last = null;
        for (RankingService.Row row : page.rows().subList(0, Math.min(limit, page.rows().size()))) {
            last = row.place();
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("rank", before + items.size() + 1);
            item.put("item_id", last.itemId());
            item.put("upvotes", row.upvotes());
            item.put("downvotes", row.downvotes());
            item.put("score", row.upvotes() - row.downvotes());
            item.put("weighted_score", row.weightedScore());
            item.put("key", last.key());
            items.add(item);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("item_type", itemType);
        body.put("sort", sort.wireName());
        body.put("window", sort.windowed() ? window.wireName() : null);
        body.put("policy", policy.wireName());
        body.put("items", items);
        body.put("next_cursor", page.rows().size() > limit
                ? new RankingCursor(sort, window, policy, before + items.size(), last).encode() : null);
        ctx.header("Tally-Position", page.positions().entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(",")));
        ctx.header("Cache-Control", "no-cache");
        ctx.json(body);
    }

    private static int limit(String text) {
        if (text == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("limit must be an integer from 1 to " + MAX_LIMIT + ", got '" + text + "'");
    }

    /** The same problem+json body as every refusal of the API (RFC 9457: type, title, status, detail). */
    public static void problem(Context ctx, int status, String type, String title, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "https://tally.dev/problems/" + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        ctx.status(status).json(body).contentType("application/problem+json");
    }
}
