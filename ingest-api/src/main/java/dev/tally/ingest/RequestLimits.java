package dev.tally.ingest;

import dev.tally.common.DoNotMutate;
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
    @DoNotMutate("reads the request; HostileInputTest runs it over HTTP")
    static void checkOrigin(Context ctx, Set<String> allowed) {
        String origin = ctx.header("Origin");
        if (writeFromOrigin(ctx.method().name(), origin, allowed)) {
            ctx.header("Access-Control-Allow-Origin", origin);
            ctx.header("Vary", "Origin");
        }
    }

    /**
     * Whether a request is a write from an allowed origin (its answer names the origin for the browser).
     *
     * @throws ApiProblem 403 for a write from an origin not allowed
     */
    static boolean writeFromOrigin(String method, String origin, Set<String> allowed) {
        if (method.equals("GET") || method.equals("HEAD") || origin == null) {
            return false;
        }
        if (!allowed.contains(origin)) {
            throw new ApiProblem(403, "origin-not-allowed", "Origin not allowed",
                    "origin '" + VoteRequest.printable(origin) + "' may not write here (TALLY_ALLOWED_ORIGINS)");
        }
        return true;
    }

    @DoNotMutate("reads the request; HostileInputTest runs it over HTTP")
    static void requireJson(Context ctx) {
        requireJson(ctx.header("Content-Type"));
    }

    /** @throws ApiProblem 415 unless the type is {@code application/json}, with parameters or none */
    static void requireJson(String contentType) {
        if (contentType == null || !JSON_TYPE.matcher(contentType).matches()) {
            throw new ApiProblem(415, "unsupported-media-type", "Unsupported media type",
                    "Content-Type must be application/json");
        }
    }

    @DoNotMutate("reads the request; HostileInputTest runs it over HTTP")
    static byte[] body(Context ctx) {
        checkLength(ctx.contentLength());
        byte[] body = ctx.bodyAsBytes();
        checkLength(body.length);
        return body;
    }

    /** @throws ApiProblem 413 for a body (declared, or read) over {@value #MAX_BODY_BYTES} bytes */
    static void checkLength(long bytes) {
        if (bytes > MAX_BODY_BYTES) {
            throw tooLarge();
        }
    }

    private static ApiProblem tooLarge() {
        return new ApiProblem(413, "body-too-large", "Body too large", "the body must be at most " + MAX_BODY_BYTES + " bytes");
    }
}
