package dev.tally.ingest;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A refusal with its RFC 9457 problem details. {@code type} is a slug under {@value #TYPE_BASE}, so
 * clients can branch on it; {@code detail} names the exact field or header at fault.
 */
public final class ApiProblem extends RuntimeException {
    static final String TYPE_BASE = "https://tally.dev/problems/";

    private final int status;
    private final String type;
    private final String title;
    private final Map<String, String> headers = new LinkedHashMap<>();

    public ApiProblem(int status, String type, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public static ApiProblem invalid(String detail) {
        return new ApiProblem(400, "invalid-request", "Invalid request", detail);
    }

    public static ApiProblem unavailable(String type, String detail) {
        return new ApiProblem(503, type, "Service unavailable", detail).withHeader("Retry-After", "1");
    }

    public ApiProblem withHeader(String name, String value) {
        headers.put(name, value);
        return this;
    }

    /** The problem type slug. */
    public String type() {
        return type;
    }

    public int status() {
        return status;
    }

    public Map<String, String> headers() {
        return headers;
    }

    /** The problem+json body. */
    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", TYPE_BASE + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", getMessage());
        return body;
    }
}
