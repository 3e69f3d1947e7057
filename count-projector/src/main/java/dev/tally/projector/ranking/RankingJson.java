package dev.tally.projector.ranking;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.tally.schema.RankedItem;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.RankingStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The contract's JSON form of an artifact, in one place, so the static file and the HTTP route can never
 * disagree: {@code {"schemaVersion":1,"generatedAt":"<ISO-8601>","status":"ready|insufficient-data",
 * "items":[{"rank","item_type","item_id","up","down","wilson"}]}}.
 */
public final class RankingJson {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private RankingJson() {}

    /** The artifact as ordered JSON values (maps, lists, strings, numbers). */
    public static Map<String, Object> toJson(RankingArtifact artifact) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (RankedItem item : artifact.getItems()) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("rank", item.getRank());
            out.put("item_type", item.getItemType());
            out.put("item_id", item.getItemId());
            out.put("up", item.getUp());
            out.put("down", item.getDown());
            out.put("wilson", Math.round(item.getWilson() * 1e6) / 1e6); // six decimals, as GET /v1/votes shows it
            items.add(out);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("schemaVersion", artifact.getSchemaVersion());
        out.put("generatedAt", artifact.getGeneratedAt().toString());
        out.put("status", status(artifact.getStatus()));
        out.put("items", items);
        return out;
    }

    /** The JSON text of {@link #toJson}, UTF-8. */
    public static byte[] bytes(RankingArtifact artifact) {
        try {
            return JSON.writeValueAsBytes(toJson(artifact));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the ranking of '" + artifact.getItemType() + "' as JSON", e);
        }
    }

    static String status(RankingStatus status) {
        return switch (status) {
            case READY -> "ready";
            case INSUFFICIENT_DATA -> "insufficient-data";
        };
    }
}
