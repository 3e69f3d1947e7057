package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Stopping the server with a live stream open: {@link LiveUpdates#endStreams} ends the stream first, so
 * the client sees a clean end of the response and the handler returns while Jetty still owns it (a stream
 * torn down under its handler made Javalin log errors in a loop at every shutdown).
 */
class LiveStreamShutdownTest {

    @Test
    void anOpenStreamEndsCleanlyBeforeTheServerStops() throws Exception {
        try (TestApi api = new TestApi()) {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/stream?items=post:1"))
                    .header("Accept", "text/event-stream").GET().build();
            HttpResponse<Stream<String>> response = http.send(request, HttpResponse.BodyHandlers.ofLines());
            assertThat(response.statusCode()).isEqualTo(200);
            Iterator<String> lines = response.body().iterator();
            String line = lines.next();
            while (!line.startsWith("event:") && lines.hasNext()) {
                line = lines.next();
            }
            assertThat(line).as("the initial snapshot arrives").isEqualTo("event: counts");
            CompletableFuture<Long> rest = CompletableFuture.supplyAsync(() -> {
                long n = 0;
                while (lines.hasNext()) {
                    lines.next();
                    n++;
                }
                return n;
            });

            assertThat(api.live.endStreams(Duration.ofSeconds(5))).as("every stream's handler returned").isTrue();
            rest.get(5, TimeUnit.SECONDS); // the response ended: the client's line stream is exhausted
            assertThat(api.live.endStreams(Duration.ZERO)).isTrue();

            HttpResponse<String> late = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(late.statusCode()).as("a stream opened while stopping ends at once").isEqualTo(200);
        }
    }

    @Test
    void curlsAcceptOfAnythingGetsTheStream() throws Exception { // curl -N sends Accept: */*
        try (TestApi api = new TestApi()) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/stream?items=post:1"))
                    .header("Accept", "*/*").GET().build();
            HttpResponse<Stream<String>> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofLines());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
            assertThat(response.body().filter(l -> l.startsWith("event:")).findFirst()).hasValue("event: counts");
            assertThat(api.live.endStreams(Duration.ofSeconds(5))).isTrue();
        }
    }
}
