package dev.tally.ingest.challenge;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for Cloudflare's siteverify on 127.0.0.1 and an ephemeral port: records each request it receives
 * and answers whatever the test configured, optionally late (before the headers or in the middle of the body).
 */
final class FakeSiteverify implements AutoCloseable {
    /** What one request carried. */
    record Received(String method, String contentType, Map<String, String> form) {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile int status = 200;
    private volatile String body = "{}";
    private volatile Duration delayBeforeHeaders = Duration.ZERO;
    private volatile Duration delayInBody = Duration.ZERO;

    FakeSiteverify() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/turnstile/v0/siteverify", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/turnstile/v0/siteverify");
    }

    FakeSiteverify answer(int status, String body) {
        this.status = status;
        this.body = body;
        return this;
    }

    FakeSiteverify answer(String body) {
        return answer(200, body);
    }

    FakeSiteverify delayBeforeHeaders(Duration delay) {
        this.delayBeforeHeaders = delay;
        return this;
    }

    FakeSiteverify delayInBody(Duration delay) {
        this.delayInBody = delay;
        return this;
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String text = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(new Received(exchange.getRequestMethod(),
                    exchange.getRequestHeaders().getFirst("Content-Type"), parseForm(text)));
            pause(delayBeforeHeaders);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            if (delayInBody.isZero()) {
                exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
                if (bytes.length > 0) {
                    exchange.getResponseBody().write(bytes);
                }
                return;
            }
            exchange.sendResponseHeaders(status, 0); // chunked: headers now, the body trickles
            OutputStream out = exchange.getResponseBody();
            int half = bytes.length / 2;
            out.write(bytes, 0, half);
            out.flush();
            pause(delayInBody);
            out.write(bytes, half, bytes.length - half);
        }
    }

    /** Sleeps, unless the test is over. */
    private void pause(Duration delay) {
        if (delay.isZero()) {
            return;
        }
        try {
            closing.await(delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Map<String, String> parseForm(String text) {
        Map<String, String> form = new LinkedHashMap<>();
        if (text.isEmpty()) {
            return form;
        }
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            form.put(URLDecoder.decode(name, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return form;
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
