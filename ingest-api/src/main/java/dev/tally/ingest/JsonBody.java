package dev.tally.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;

/** The body of an admin request: one JSON object (no duplicate keys, nothing after it) of known fields only. */
final class JsonBody {
    private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private JsonBody() {}

    static JsonNode object(Context ctx, Set<String> allowed) {
        RequestLimits.requireJson(ctx);
        JsonNode root;
        try {
            root = JSON.readTree(RequestLimits.body(ctx));
        } catch (IOException e) {
            throw new ApiProblem(400, "malformed-json", "Malformed JSON", "the body is not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw ApiProblem.invalid("the body must be a JSON object");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                throw new ApiProblem(400, "unknown-field", "Unknown field", "unknown field '" + VoteRequest.printable(key)
                        + "'; allowed: " + new TreeSet<>(allowed));
            }
        }
        return root;
    }
}
