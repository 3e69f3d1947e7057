package dev.tally.ingest;

import io.javalin.http.Context;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The cheap refusals requests pass first: the origin allowlist (403) for writes, media type (415) and
 * size (413) before a body is parsed.
 */
final class RequestLimits {
    static final int MAX_BODY_BYTES = 4096;
    private static final Pattern JSON_TYPE = Pattern.compile("(?i)application/json\\s*(;.*)?");

    private RequestLimits() {}

    /**
     * A browser write from another site is refused unless its origin is allowed; a request without
     * {@code Origin} (a server, curl) is not a browser's cross-site write and passes.
     */
    static void checkOrigin(Context ctx, Set<String> allowed) {
        String method = ctx.method().name();
        if (method.equals("GET") || method.equals("HEAD")) {
            return;
        }
        String origin = ctx.header("Origin");
        if (origin != null && !allowed.contains(origin)) {
            throw new ApiProblem(403, "origin-not-allowed", "Origin not allowed",
                    "origin '" + VoteRequest.printable(origin) + "' may not write here (TALLY_ALLOWED_ORIGINS)");
        }
        if (origin != null) {
            ctx.header("Access-Control-Allow-Origin", origin);
            ctx.header("Vary", "Origin");
        }
    }

    static void requireJson(Context ctx) {
        String contentType = ctx.header("Content-Type");
        if (contentType == null || !JSON_TYPE.matcher(contentType).matches()) {
            throw new ApiProblem(415, "unsupported-media-type", "Unsupported media type",
                    "Content-Type must be application/json");
        }
    }

    static byte[] body(Context ctx) {
        if (ctx.contentLength() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        byte[] body = ctx.bodyAsBytes();
        if (body.length > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        return body;
    }

    private static ApiProblem tooLarge() {
        return new ApiProblem(413, "body-too-large", "Body too large", "the body must be at most " + MAX_BODY_BYTES + " bytes");
    }
}
