package dev.tally.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.common.KeyedView;
import dev.tally.common.ReactionRegistry;
import dev.tally.common.ReactionWriter;
import dev.tally.schema.ReactionType;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET /v1/reactions} (active codes) and the admin's {@code PUT}/{@code DELETE
 * /v1/admin/reactions/{code}}: the registry lives in the compacted {@code tally.reaction-types}.
 */
final class ReactionHandler {
    private static final Set<String> KEYS = Set.of("label", "icon_url");

    private final KeyedView<ReactionType> view;
    private final ReactionWriter registry;
    private final Identities identities;

    ReactionHandler(KeyedView<ReactionType> view, ReactionWriter registry, Identities identities) {
        this.view = view;
        this.registry = registry;
        this.identities = identities;
    }

    void list(Context ctx) {
        ctx.json(view.snapshot().values().stream().filter(ReactionType::getActive)
                .sorted(ReactionRegistry.DISPLAY_ORDER).map(ReactionHandler::json).toList());
    }

    void put(Context ctx) {
        identities.requireAdmin(ctx);
        String code = code(ctx);
        JsonNode body = body(ctx);
        JsonNode label = body.get("label");
        if (label == null || !label.isTextual() || label.asText().isBlank() || label.asText().length() > 64) {
            throw ApiProblem.invalid("'label' is required: a string of 1 to 64 characters");
        }
        JsonNode icon = body.get("icon_url");
        String iconUrl = null;
        if (icon != null && !icon.isNull()) {
            if (!icon.isTextual() || !icon.asText().matches("(https://|/)[\\x21-\\x7E]{1,500}")) {
                throw ApiProblem.invalid("'icon_url' must be an https:// URL or a path starting with /, or null");
            }
            iconUrl = icon.asText();
        }
        ReactionType written = registry.put(code, label.asText(), iconUrl);
        view.applyLocal(code, written);
        ctx.json(json(written));
    }

    void retire(Context ctx) {
        identities.requireAdmin(ctx);
        String code = code(ctx);
        ReactionType current = view.get(code).orElseThrow(() -> new ApiProblem(404, "unknown-reaction",
                "Unknown reaction", "'" + code + "' is not a reaction code"));
        ReactionType written = current.getActive() ? registry.retire(current) : current;
        view.applyLocal(code, written);
        ctx.json(json(written));
    }

    private static String code(Context ctx) {
        String code = ctx.pathParam("code");
        if (!VoteRequest.REACTION_CODE.matcher(code).matches()) {
            throw ApiProblem.invalid("reaction code must match [a-z][a-z0-9_]{0,31}");
        }
        return code;
    }

    private static JsonNode body(Context ctx) {
        return JsonBody.object(ctx, KEYS);
    }

    private static Map<String, Object> json(ReactionType t) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("code", t.getCode());
        out.put("label", t.getLabel());
        out.put("icon_url", t.getIconUrl());
        if (!t.getActive()) {
            out.put("active", false);
        }
        return out;
    }
}
