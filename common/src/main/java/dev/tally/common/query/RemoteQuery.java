package dev.tally.common.query;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Forwards a query over HTTP to the instance that owns the key, on its internal routes. */
public final class RemoteQuery {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule());
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public <T> T get(String baseUrl, String path, Class<T> type) throws Unavailable {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(3)).GET().build();
        try {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                throw new Unavailable(baseUrl + path + " answered " + response.statusCode());
            }
            return JSON.readValue(response.body(), type);
        } catch (IOException e) {
            throw new Unavailable("cannot reach " + baseUrl + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while querying " + baseUrl + path, e);
        }
    }
}
