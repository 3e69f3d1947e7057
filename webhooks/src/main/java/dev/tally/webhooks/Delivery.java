package dev.tally.webhooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.query.ItemCountsView;
import dev.tally.schema.ItemCounts;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one delivery sends: the item's latest counts as the body, and the {@code webhook-id} that stays the same for
 * every attempt to send this value of this item to this subscription.
 *
 * <pre>{"type":"item.counts","item_type","item_id","seq","position",
 *  "counts":{"upvotes","downvotes","score","reactions"},"changed_at"}</pre>
 * {@code seq} is the offset of the counts in {@code tally.item-counts}: it grows with every change of the item, so a
 * receiver keeps the value with the highest {@code seq} it has seen and ignores any other.
 */
public final class Delivery {
    public static final String TYPE = "item.counts";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Delivery() {}

    public static String body(ItemCounts counts, long seq) {
        ItemCountsView view = ItemCountsView.of(counts, false);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("upvotes", view.upvotes());
        c.put("downvotes", view.downvotes());
        c.put("score", view.score());
        c.put("reactions", new TreeMap<>(view.reactions()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", TYPE);
        body.put("item_type", view.itemType());
        body.put("item_id", view.itemId());
        body.put("seq", seq);
        body.put("position", view.position());
        body.put("counts", c);
        body.put("changed_at", counts.getUpdatedAt().toString());
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code msg_} and 22 base64url characters of SHA-256 over the subscription, the item and the seq. */
    public static String webhookId(String subscriptionId, String itemKey, long seq) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((subscriptionId + "\n" + itemKey + "\n" + seq).getBytes(StandardCharsets.UTF_8));
            return "msg_" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
