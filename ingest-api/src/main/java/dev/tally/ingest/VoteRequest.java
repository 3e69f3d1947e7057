package dev.tally.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteMode;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A vote or reaction request, parsed with hostility: a JSON object whose keys are a subset of the
 * contract's, no duplicates, exactly one of {@code vote_value} (the JSON integers 1, -1, 0) or
 * {@code reaction}, ids that match their patterns. Anything else is a specific 400.
 *
 * @param reaction null clears the reaction (only meaningful when {@code action} is REACTION)
 */
public record VoteRequest(String itemType, String itemId, CommandAction action, int voteValue, String reaction,
                          VoteMode mode, int catalogVersion) {
    public static final Pattern ITEM_TYPE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    public static final Pattern ITEM_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    public static final Pattern REACTION_CODE = Pattern.compile("[a-z][a-z0-9_]{0,31}");
    private static final Set<String> KEYS =
            Set.of("item_type", "item_id", "vote_value", "reaction", "mode", "catalog_version");

    /** Parses the body; {@code defaultCatalogVersion} applies when the request names none. */
    public static VoteRequest parse(byte[] body, int defaultCatalogVersion) {
        JsonNode root = JsonBody.object(body, KEYS);
        String itemType = text(root, "item_type", ITEM_TYPE, "[a-z][a-z0-9_-]{0,31}");
        String itemId = text(root, "item_id", ITEM_ID, "[A-Za-z0-9._:-]{1,64}");
        boolean hasVote = root.has("vote_value");
        boolean hasReaction = root.has("reaction");
        if (hasVote == hasReaction) {
            throw ApiProblem.invalid("exactly one of 'vote_value' or 'reaction' is required");
        }
        VoteMode mode = VoteMode.TOGGLE;
        if (root.has("mode")) {
            JsonNode m = root.get("mode");
            if (!m.isTextual() || !(m.asText().equals("toggle") || m.asText().equals("set"))) {
                throw ApiProblem.invalid("'mode' must be \"toggle\" or \"set\"");
            }
            mode = m.asText().equals("set") ? VoteMode.SET : VoteMode.TOGGLE;
        }
        int catalogVersion = defaultCatalogVersion;
        if (root.has("catalog_version")) {
            JsonNode v = root.get("catalog_version");
            if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
                throw ApiProblem.invalid("'catalog_version' must be a positive JSON integer");
            }
            catalogVersion = v.asInt();
        }
        if (hasVote) {
            JsonNode v = root.get("vote_value");
            if (!v.isIntegralNumber() || !v.canConvertToInt() || Math.abs(v.asInt()) > 1) {
                throw ApiProblem.invalid("'vote_value' must be the JSON integer 1, -1 or 0");
            }
            return new VoteRequest(itemType, itemId, CommandAction.VOTE, v.asInt(), null, mode, catalogVersion);
        }
        JsonNode r = root.get("reaction");
        if (r.isNull()) {
            return new VoteRequest(itemType, itemId, CommandAction.REACTION, 0, null, mode, catalogVersion);
        }
        if (!r.isTextual() || !REACTION_CODE.matcher(r.asText()).matches()) {
            throw ApiProblem.invalid("'reaction' must be a reaction code matching [a-z][a-z0-9_]{0,31}, or null");
        }
        return new VoteRequest(itemType, itemId, CommandAction.REACTION, 0, r.asText(), mode, catalogVersion);
    }

    /**
     * SHA-256 of the request's meaning (not its bytes): a retry with the same Idempotency-Key must mean
     * the same thing, however its JSON is spaced or ordered.
     */
    public String canonicalHash() {
        return ReadHandler.sha256(String.join("\n", itemType, itemId, action.name(), Integer.toString(voteValue),
                String.valueOf(reaction), mode.name(), Integer.toString(catalogVersion)));
    }

    private static String text(JsonNode root, String field, Pattern pattern, String shown) {
        JsonNode n = root.get(field);
        if (n == null) {
            throw ApiProblem.invalid("'" + field + "' is required");
        }
        if (!n.isTextual() || !pattern.matcher(n.asText()).matches()) {
            throw ApiProblem.invalid("'" + field + "' must be a string matching " + shown);
        }
        return n.asText();
    }

    /** Echoes client text in an error only as printable ASCII, cut short. */
    static String printable(String s) {
        String clean = s.replaceAll("[^\\x20-\\x7E]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "…" : clean;
    }
}
