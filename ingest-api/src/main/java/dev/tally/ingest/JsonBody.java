package dev.tally.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.tally.common.DoNotMutate;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;

/** A request body: one JSON object (no duplicate keys, nothing after it) of known fields only. */
final class JsonBody {
    private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private JsonBody() {}

    /** The body of an admin request, which must say it is JSON. */
    @DoNotMutate("reads the request; WebhooksIT sends admin bodies over HTTP")
    static JsonNode object(Context ctx, Set<String> allowed) {
        RequestLimits.requireJson(ctx);
        return object(RequestLimits.body(ctx), allowed);
    }

    static JsonNode object(byte[] body, Set<String> allowed) {
        if (body.length == 0) {
            throw new ApiProblem(400, "malformed-json", "Malformed JSON", "the body is empty: send a JSON object");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new ApiProblem(400, "malformed-json", "Malformed JSON", "the body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ApiProblem(400, "malformed-json", "Malformed JSON", "the body could not be read");
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
