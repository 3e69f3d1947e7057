package dev.tally.launcher.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The HTTP path: client threads POST {@code /v1/votes} as the voter named in {@code X-Tally-User} (the
 * dev profile trusts it). A vote is acknowledged on 200 (applied, counts included) or 202 (durably in
 * Kafka, outcome not ready in time). A 200's {@code position} ({@code partition:offset} of the command)
 * feeds the vote→visible latency.
 */
public final class HttpLoad {
    private HttpLoad() {}

    public static void run(String baseUrl, Workload workload, int clients, LoadStats stats, ViewFollower follower)
            throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        URI uri = URI.create(baseUrl + "/v1/votes");
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
            SplittableRandom random = new SplittableRandom(0x4177L * 31 + t);
            Thread worker = new Thread(() -> post(http, uri, workload, random, stats, follower), "bench-http-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    private static void post(HttpClient http, URI uri, Workload workload, SplittableRandom random, LoadStats stats,
                             ViewFollower follower) {
        try {
            postAll(http, uri, workload, random, stats, follower);
        } catch (RuntimeException e) {
            stats.crashed(e);
        }
    }

    private static void postAll(HttpClient http, URI uri, Workload workload, SplittableRandom random, LoadStats stats,
                                ViewFollower follower) {
        for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) {
            Workload.Vote vote = workload.vote(seq, random);
            String body = "{\"item_type\":\"" + Workload.ITEM_TYPE + "\",\"item_id\":\"" + vote.itemId()
                    + "\",\"vote_value\":" + vote.value() + ",\"mode\":\"set\"}";
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").header("X-Tally-User", vote.voter())
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                long now = System.nanoTime();
                int status = response.statusCode();
                if (status == 200 || status == 202) {
                    stats.acked();
                    long[] position = status == 200 && stats.sampled(seq) ? position(response.body()) : null;
                    if (position != null) {
                        follower.expect(vote.itemKey(), (int) position[0], position[1], now);
                    }
                } else {
                    stats.failed("HTTP " + status + ": " + response.body());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                stats.failed(e.toString());
            }
        }
    }

    /** {@code "position":"P:O"} of a 200 answer as {P, O}, or null. */
    static long[] position(String body) {
        int at = body.indexOf("\"position\":\"");
        if (at < 0) {
            return null;
        }
        int start = at + "\"position\":\"".length();
        int end = body.indexOf('"', start);
        int colon = body.indexOf(':', start);
        if (end < 0 || colon < 0 || colon > end) {
            return null;
        }
        try {
            return new long[] {Long.parseLong(body.substring(start, colon)), Long.parseLong(body.substring(colon + 1, end))};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
