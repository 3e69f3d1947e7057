package dev.tally.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;

/** A small HTTP client for integration tests, speaking the contract's JSON. */
final class TallyClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    TallyClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    record Reply(int status, JsonNode body, HttpResponse<String> raw) {
        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    Reply vote(String user, String json) {
        return send(HttpRequest.newBuilder(URI.create(base + "/v1/votes"))
                .header("Content-Type", "application/json").header("X-Tally-User", user)
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    Reply vote(String user, String itemId, int value, String mode) {
        return vote(user, "{\"item_type\":\"post\",\"item_id\":\"" + itemId + "\",\"vote_value\":" + value
                + ",\"mode\":\"" + mode + "\"}");
    }

    Reply get(String user, String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (user != null) {
            b.header("X-Tally-User", user);
        }
        return send(b);
    }

    /**
     * Reads the item until its body satisfies {@code until} or {@code timeout} passes; returns the last
     * answer either way, so the caller's assertion reports what was seen.
     */
    Reply awaitItem(String user, String itemId, Predicate<JsonNode> until, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Reply last;
        do {
            last = get(user, "/v1/votes/post/" + itemId);
            if (last.status() == 200 && until.test(last.body())) {
                return last;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        return last;
    }

    Reply send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> r = http.send(request.timeout(Duration.ofSeconds(15)).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode body = r.body().isEmpty() ? null : JSON.readTree(r.body());
            return new Reply(r.statusCode(), body, r);
        } catch (IOException e) {
            throw new IllegalStateException("request failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
