package dev.tally.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answer to a request Jetty refuses before any route sees it — request headers over
 * {@value #MAX_HEADER_BYTES} bytes (431), a request line longer than that (414), a message that is not
 * HTTP (400) — in the API's own format: problem+json with a specific {@code type}, not Jetty's HTML page.
 */
final class ProtocolErrors extends ErrorHandler {
    /** Jetty's request header buffer (the request line included): the bound on headers and URI. */
    static final int MAX_HEADER_BYTES = 8192;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The problem for a status Jetty answers on its own. */
    static ApiProblem problem(int status, String message) {
        return switch (status) {
            case 431 -> new ApiProblem(431, "headers-too-large", "Request header fields too large",
                    "the request headers exceed " + MAX_HEADER_BYTES + " bytes; nothing was read");
            case 414 -> new ApiProblem(414, "uri-too-long", "URI too long",
                    "the request line exceeds " + MAX_HEADER_BYTES + " bytes; nothing was read");
            case 413 -> new ApiProblem(413, "body-too-large", "Payload too large", "the request is too large");
            default -> status >= 500
                    ? new ApiProblem(status, "internal-error", "Internal error", "the server failed; nothing was applied")
                    : new ApiProblem(status, "invalid-request", "Invalid request",
                            "not a valid HTTP request" + (message == null || message.isBlank() ? "" : ": " + message));
        };
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        ApiProblem problem = problem(code, message);
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(problem.body());
        } catch (JsonProcessingException e) {
            body = ("{\"status\":" + code + "}").getBytes(StandardCharsets.UTF_8);
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
