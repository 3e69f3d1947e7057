package dev.tally.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.common.KeyedView;
import dev.tally.schema.WebhookAttempt;
import dev.tally.schema.WebhookPosition;
import dev.tally.schema.WebhookSubscription;
import dev.tally.webhooks.DeliveryLog;
import dev.tally.webhooks.Subscriptions;
import dev.tally.webhooks.WebhookSecrets;
import dev.tally.webhooks.WebhooksConfig;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The admin's webhook subscriptions under {@code /v1/admin/webhooks}: create (the secret is shown once), list, show,
 * pause or resume, delete, rotate the secret (the old one signs beside it for a day), redeliver since a time, and the
 * latest delivery attempts. Subscriptions live in {@code tally.webhook-subscriptions}; the nodes running the
 * count-projector send.
 */
public final class WebhookHandler {
    static final Set<String> CREATE_KEYS = Set.of("url", "item_types", "items", "coalesce_ms", "start");
    static final int MAX_FILTERS = 1000;
    static final int MAX_COALESCE_MS = 60_000;
    public static final Duration PREVIOUS_SECRET_VALID = Duration.ofHours(24);

    private final Subscriptions subscriptions;
    private final DeliveryLog log;
    private final KeyedView<WebhookPosition> positions;
    private final WebhookSecrets secrets;
    private final WebhooksConfig config;
    private final Identities identities;
    private final SecureRandom random = new SecureRandom();

    public WebhookHandler(Subscriptions subscriptions, DeliveryLog log, KeyedView<WebhookPosition> positions,
                          WebhookSecrets secrets, WebhooksConfig config, Identities identities) {
        this.subscriptions = subscriptions;
        this.log = log;
        this.positions = positions;
        this.secrets = secrets;
        this.config = config;
        this.identities = identities;
    }

    public void mount(RoutesConfig routes) {
        routes.post("/v1/admin/webhooks", this::create);
        routes.get("/v1/admin/webhooks", this::list);
        routes.get("/v1/admin/webhooks/{id}", this::show);
        routes.patch("/v1/admin/webhooks/{id}", this::patch);
        routes.delete("/v1/admin/webhooks/{id}", this::delete);
        routes.post("/v1/admin/webhooks/{id}/rotate-secret", this::rotate);
        routes.post("/v1/admin/webhooks/{id}/redeliver", this::redeliver);
        routes.get("/v1/admin/webhooks/{id}/deliveries", this::deliveries);
    }

    void create(Context ctx) {
        identities.requireAdmin(ctx);
        JsonNode body = JsonBody.object(ctx, CREATE_KEYS);
        JsonNode url = body.get("url");
        if (url == null || !url.isTextual()) {
            throw ApiProblem.invalid("'url' is required: the https URL deliveries are POSTed to");
        }
        try {
            config.checkUrl(url.asText());
        } catch (IllegalArgumentException e) {
            throw ApiProblem.invalid(e.getMessage());
        }
        List<String> types = strings(body, "item_types", "an item type ([a-z][a-z0-9_-]{0,31})", s -> VoteRequest.ITEM_TYPE.matcher(s).matches());
        List<String> items = strings(body, "items", "an item as type:id", s -> {
            int colon = s.indexOf(':');
            return colon > 0 && VoteRequest.ITEM_TYPE.matcher(s.substring(0, colon)).matches()
                    && VoteRequest.ITEM_ID.matcher(s.substring(colon + 1)).matches();
        });
        int coalesce = 1000;
        JsonNode c = body.get("coalesce_ms");
        if (c != null) {
            if (!c.isIntegralNumber() || c.asLong() < 0 || c.asLong() > MAX_COALESCE_MS) {
                throw ApiProblem.invalid("'coalesce_ms' must be an integer from 0 to " + MAX_COALESCE_MS);
            }
            coalesce = c.asInt();
        }
        String start = "now";
        JsonNode s = body.get("start");
        if (s != null) {
            if (!s.isTextual() || !(s.asText().equals("now") || s.asText().equals("snapshot"))) {
                throw ApiProblem.invalid("'start' must be \"now\" or \"snapshot\"");
            }
            start = s.asText();
        }
        Instant now = Instant.now();
        byte[] id = new byte[12];
        random.nextBytes(id);
        WebhookSubscription sub = WebhookSubscription.newBuilder().setId("wh_" + HexFormat.of().formatHex(id))
                .setUrl(url.asText()).setItemTypes(types).setItems(items).setCoalesceMs(coalesce).setStart(start)
                .setStatus(Subscriptions.ACTIVE).setDisabledReason(null).setSecretGeneration(1).setPreviousSecretUntil(null)
                .setRedeliverSince(null).setRedeliverRequest(0).setCreatedAt(now).setUpdatedAt(now).build();
        write(sub);
        Map<String, Object> out = json(sub);
        out.put("secret", secrets.shown(sub.getId(), 1));
        ctx.status(201).header("Location", "/v1/admin/webhooks/" + sub.getId()).json(out);
    }

    void list(Context ctx) {
        identities.requireAdmin(ctx);
        ctx.json(Map.of("webhooks", subscriptions.all().stream().map(this::json).toList()));
    }

    void show(Context ctx) {
        identities.requireAdmin(ctx);
        ctx.json(json(find(ctx)));
    }

    void patch(Context ctx) {
        identities.requireAdmin(ctx);
        WebhookSubscription sub = find(ctx);
        JsonNode body = JsonBody.object(ctx, Set.of("status"));
        JsonNode status = body.get("status");
        if (status == null || !status.isTextual()
                || !(status.asText().equals(Subscriptions.ACTIVE) || status.asText().equals(Subscriptions.PAUSED))) {
            throw ApiProblem.invalid("'status' must be \"active\" or \"paused\"");
        }
        WebhookSubscription changed = WebhookSubscription.newBuilder(sub).setStatus(status.asText())
                .setDisabledReason(null).setUpdatedAt(Instant.now()).build();
        ctx.json(json(write(changed)));
    }

    void delete(Context ctx) {
        identities.requireAdmin(ctx);
        WebhookSubscription sub = find(ctx);
        try {
            subscriptions.delete(sub.getId());
            log.forget(sub.getId());
        } catch (IllegalStateException e) {
            throw ApiProblem.unavailable("kafka-unavailable", "the deletion was not stored: " + e.getMessage());
        }
        ctx.status(204);
    }

    void rotate(Context ctx) {
        identities.requireAdmin(ctx);
        WebhookSubscription sub = find(ctx);
        Instant now = Instant.now();
        int generation = sub.getSecretGeneration() + 1;
        WebhookSubscription rotated = write(WebhookSubscription.newBuilder(sub).setSecretGeneration(generation)
                .setPreviousSecretUntil(now.plus(PREVIOUS_SECRET_VALID)).setUpdatedAt(now).build());
        Map<String, Object> out = json(rotated);
        out.put("secret", secrets.shown(sub.getId(), generation));
        ctx.json(out);
    }

    void redeliver(Context ctx) {
        identities.requireAdmin(ctx);
        WebhookSubscription sub = find(ctx);
        JsonNode since = JsonBody.object(ctx, Set.of("since")).get("since");
        Instant at;
        try {
            at = Instant.parse(since == null || !since.isTextual() ? "" : since.asText());
        } catch (DateTimeParseException e) {
            throw ApiProblem.invalid("'since' is required: an ISO-8601 time such as 2026-12-07T10:00:00Z");
        }
        if (at.isAfter(Instant.now())) {
            throw ApiProblem.invalid("'since' is in the future");
        }
        if (!Subscriptions.ACTIVE.equals(sub.getStatus())) {
            throw new ApiProblem(409, "webhook-not-active", "Subscription not active",
                    "the subscription is " + sub.getStatus() + "; set it active first");
        }
        WebhookSubscription asked = write(WebhookSubscription.newBuilder(sub).setRedeliverSince(at)
                .setRedeliverRequest(sub.getRedeliverRequest() + 1).setUpdatedAt(Instant.now()).build());
        Map<String, Object> out = json(asked);
        out.put("redeliver_since", at.toString());
        ctx.status(202).json(out);
    }

    void deliveries(Context ctx) {
        identities.requireAdmin(ctx);
        WebhookSubscription sub = find(ctx);
        int limit = 20;
        String text = ctx.queryParam("limit");
        if (text != null) {
            try {
                limit = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > DeliveryLog.KEPT) {
                throw ApiProblem.invalid("limit must be an integer from 1 to " + DeliveryLog.KEPT);
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (WebhookAttempt a : log.latest(sub.getId(), limit)) {
            out.add(attempt(a));
        }
        ctx.json(Map.of("id", sub.getId(), "deliveries", out));
    }

    private WebhookSubscription find(Context ctx) {
        String id = ctx.pathParam("id");
        return subscriptions.get(id).orElseThrow(() -> new ApiProblem(404, "unknown-webhook", "Unknown webhook",
                "no webhook subscription '" + VoteRequest.printable(id) + "'"));
    }

    private WebhookSubscription write(WebhookSubscription sub) {
        try {
            return subscriptions.put(sub);
        } catch (IllegalStateException e) {
            throw ApiProblem.unavailable("kafka-unavailable", "the subscription was not stored: " + e.getMessage());
        }
    }

    private static List<String> strings(JsonNode body, String field, String what, java.util.function.Predicate<String> valid) {
        JsonNode node = body.get(field);
        if (node == null) {
            return List.of();
        }
        if (!node.isArray() || node.size() > MAX_FILTERS) {
            throw ApiProblem.invalid("'" + field + "' must be an array of at most " + MAX_FILTERS + " strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : node) {
            if (!e.isTextual() || !valid.test(e.asText())) {
                throw ApiProblem.invalid("'" + field + "': each entry must be " + what + ", got "
                        + (e.isTextual() ? "'" + VoteRequest.printable(e.asText()) + "'" : e.getNodeType().toString().toLowerCase()));
            }
            if (!out.contains(e.asText())) {
                out.add(e.asText());
            }
        }
        return out;
    }

    /** A subscription as the API shows it: its settings, status, lag and last attempt; never its secret. */
    private Map<String, Object> json(WebhookSubscription sub) {
        long pending = 0;
        Instant oldest = null;
        Instant failingSince = null;
        for (var e : positions.snapshot().entrySet()) {
            WebhookPosition position = e.getValue();
            if (position.getSubscriptionId().equals(sub.getId())) {
                pending += position.getPendingItems();
                oldest = earliest(oldest, position.getOldestChangeAt());
                failingSince = earliest(failingSince, position.getFailingSince());
            }
        }
        String status = sub.getStatus();
        if (Subscriptions.ACTIVE.equals(status) && failingSince != null) {
            status = "failing";
        }
        Map<String, Object> lag = new LinkedHashMap<>();
        lag.put("pending_items", pending);
        lag.put("oldest_change_at", oldest == null ? null : oldest.toString());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", sub.getId());
        out.put("url", sub.getUrl());
        out.put("item_types", sub.getItemTypes());
        out.put("items", sub.getItems());
        out.put("coalesce_ms", sub.getCoalesceMs());
        out.put("start", sub.getStart());
        out.put("status", status);
        out.put("disabled_reason", sub.getDisabledReason());
        out.put("failing_since", failingSince == null ? null : failingSince.toString());
        out.put("lag", lag);
        out.put("last_attempt", log.last(sub.getId()).map(WebhookHandler::attempt).orElse(null));
        out.put("previous_secret_valid_until", sub.getPreviousSecretUntil() == null
                || sub.getPreviousSecretUntil().isBefore(Instant.now()) ? null : sub.getPreviousSecretUntil().toString());
        out.put("created_at", sub.getCreatedAt().toString());
        out.put("updated_at", sub.getUpdatedAt().toString());
        return out;
    }

    private static Instant earliest(Instant a, Instant b) {
        return a == null ? b : b == null || a.isBefore(b) ? a : b;
    }

    private static Map<String, Object> attempt(WebhookAttempt a) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("attempted_at", a.getAttemptedAt().toString());
        out.put("webhook_id", a.getWebhookId());
        out.put("item_type", a.getItemType());
        out.put("item_id", a.getItemId());
        out.put("seq", a.getSeq());
        out.put("attempt", a.getAttempt());
        out.put("http_status", a.getHttpStatus() == 0 ? null : a.getHttpStatus());
        out.put("error", a.getError());
        out.put("duration_ms", a.getDurationMs());
        out.put("next_attempt_at", a.getNextAttemptAt() == null ? null : a.getNextAttemptAt().toString());
        return out;
    }
}
