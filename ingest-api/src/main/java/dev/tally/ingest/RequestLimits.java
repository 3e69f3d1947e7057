package dev.tally.ingest;

import io.javalin.http.Context;

/** The cheap refusals every JSON write passes first: media type (415) and size (413), before the body is parsed. */
final class RequestLimits {
    static final int MAX_BODY_BYTES = 4096;

    private RequestLimits() {}

    static void requireJson(Context ctx) {
        String contentType = ctx.header("Content-Type");
        if (contentType == null || !contentType.toLowerCase().matches("application/json\\s*(;.*)?")) {
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
