package dev.tally.ingest.challenge;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Verifies Cloudflare Turnstile tokens with the siteverify endpoint.
 *
 * <p>{@code success} alone is not enough, so a token passes only when all three hold:
 * <ul>
 *   <li>{@code success} is {@code true}: the token is real and unused;</li>
 *   <li>{@code hostname} is one of ours: otherwise an attacker embeds our site key on their own page, farms
 *       tokens from real visitors there and replays them at this API;</li>
 *   <li>{@code action} equals ours: the token was minted for the vote button, not some other form.</li>
 * </ul>
 *
 * <p>Everything else fails closed with a short reason: an empty token or one longer than Cloudflare's
 * {@value #MAX_TOKEN_CHARS} characters (refused without a network call), an unreachable endpoint, a connect
 * beyond 2 s or an answer beyond 3 s (the whole exchange, body included, so a trickling server cannot hold a vote
 * thread), an HTTP status other than 200 (redirects are not followed), an answer that is not one JSON object or
 * lacks a field, an answer over {@value #MAX_ANSWER_BYTES} bytes. The request is the documented form encoding
 * ({@code secret}, {@code response}, {@code remoteip}). Nothing is logged here; neither the token nor the secret
 * appears in a verdict or in {@link #toString()}.
 */
public final class TurnstileVerifier implements ChallengeVerifier {
    /** Cloudflare's production endpoint. */
    public static final URI DEFAULT_SITEVERIFY_URL =
            URI.create("https://challenges.cloudflare.com/turnstile/v0/siteverify");
    /** Cloudflare documents tokens as at most 2048 characters; anything longer is not a token. */
    public static final int MAX_TOKEN_CHARS = 2048;
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
    /** A real answer is a few hundred bytes; a bigger one is not worth reading. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;
    private static final int MAX_ECHO_CHARS = 64;

    /** Strict: trailing garbage or a repeated key (two {@code success}es) is malformed, not "last one wins". */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    private final URI siteverifyUrl;
    private final String secret;
    private final Set<String> hostnames;
    private final String action;
    private final Duration requestTimeout;
    private final HttpClient http;

    /**
     * @param siteverifyUrl absolute http(s) URL of the siteverify endpoint
     * @param secret        the Turnstile secret key
     * @param hostnames     the hostnames our pages are served from (compared case-insensitively)
     * @param action        the action the widget stamps on tokens for the vote button
     */
    public TurnstileVerifier(URI siteverifyUrl, String secret, Collection<String> hostnames, String action) {
        this(siteverifyUrl, secret, hostnames, action, CONNECT_TIMEOUT, REQUEST_TIMEOUT);
    }

    /** With other timeouts: lets tests exercise a slow server without waiting seconds. */
    TurnstileVerifier(URI siteverifyUrl, String secret, Collection<String> hostnames, String action,
                      Duration connectTimeout, Duration requestTimeout) {
        this.siteverifyUrl = Objects.requireNonNull(siteverifyUrl, "siteverifyUrl");
        if (!siteverifyUrl.isAbsolute() || siteverifyUrl.getHost() == null
                || !List.of("http", "https").contains(siteverifyUrl.getScheme().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("siteverifyUrl must be an absolute http(s) URL: " + siteverifyUrl);
        }
        this.secret = Objects.requireNonNull(secret, "secret");
        if (secret.isBlank()) {
            throw new IllegalArgumentException("secret must not be blank");
        }
        this.hostnames = hostnames.stream().map(h -> h.strip().toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
        if (this.hostnames.isEmpty() || this.hostnames.contains("")) {
            throw new IllegalArgumentException("hostnames must be non-empty names");
        }
        this.action = Objects.requireNonNull(action, "action");
        if (action.isBlank()) {
            throw new IllegalArgumentException("action must not be blank");
        }
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.http = HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public URI siteverifyUrl() {
        return siteverifyUrl;
    }

    public Set<String> hostnames() {
        return hostnames;
    }

    public String action() {
        return action;
    }

    @Override
    public Verdict verify(String token, InetAddress clientAddress) {
        if (token == null || token.isEmpty()) {
            return Verdict.fail("missing challenge token");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            return Verdict.fail("challenge token longer than " + MAX_TOKEN_CHARS + " chars");
        }
        HttpRequest request = HttpRequest.newBuilder(siteverifyUrl)
                .timeout(requestTimeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(form(token, clientAddress), StandardCharsets.UTF_8))
                .build();
        CompletableFuture<HttpResponse<byte[]>> pending = http.sendAsync(request, TurnstileVerifier::bodyIfOk);
        HttpResponse<byte[]> response;
        try {
            // The request timeout stops at the headers; this deadline also bounds the body.
            response = pending.get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            return Verdict.fail("siteverify timed out");
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            return Verdict.fail("interrupted while verifying the challenge");
        } catch (ExecutionException e) {
            return failure(e.getCause());
        }
        if (response.statusCode() != 200) {
            return Verdict.fail("siteverify answered HTTP " + response.statusCode());
        }
        JsonNode answer;
        try {
            answer = JSON.readTree(response.body());
        } catch (IOException e) {
            return Verdict.fail("siteverify answer is not valid JSON");
        }
        return judge(answer);
    }

    /** The three assertions above, on a parsed siteverify answer. */
    Verdict judge(JsonNode answer) {
        if (answer == null || !answer.isObject()) {
            return Verdict.fail("siteverify answer is not a JSON object");
        }
        JsonNode success = answer.get("success");
        if (success == null || !success.isBoolean()) {
            return Verdict.fail("siteverify answer lacks a boolean success");
        }
        if (!success.booleanValue()) {
            List<String> codes = new ArrayList<>();
            JsonNode errors = answer.get("error-codes");
            if (errors != null && errors.isArray()) {
                errors.forEach(c -> {
                    if (c.isTextual() && codes.size() < 3) {
                        codes.add(echo(c.textValue()));
                    }
                });
            }
            return Verdict.fail(codes.isEmpty() ? "challenge not passed" : "challenge not passed: " + codes);
        }
        JsonNode hostname = answer.get("hostname");
        if (hostname == null || !hostname.isTextual()) {
            return Verdict.fail("siteverify answer lacks hostname");
        }
        if (!hostnames.contains(hostname.textValue().toLowerCase(Locale.ROOT))) {
            return Verdict.fail("token minted on another hostname: " + echo(hostname.textValue()));
        }
        JsonNode minted = answer.get("action");
        if (minted == null || !minted.isTextual()) {
            return Verdict.fail("siteverify answer lacks action");
        }
        if (!action.equals(minted.textValue())) {
            return Verdict.fail("token minted for action " + echo(minted.textValue()) + ", not " + action);
        }
        return Verdict.pass("turnstile passed");
    }

    private String form(String token, InetAddress clientAddress) {
        StringBuilder form = new StringBuilder()
                .append("secret=").append(URLEncoder.encode(secret, StandardCharsets.UTF_8))
                .append("&response=").append(URLEncoder.encode(token, StandardCharsets.UTF_8));
        if (clientAddress != null) {
            String ip = clientAddress.getHostAddress();
            int scope = ip.indexOf('%'); // an IPv6 zone is meaningful only on this host
            form.append("&remoteip=").append(URLEncoder.encode(scope < 0 ? ip : ip.substring(0, scope),
                    StandardCharsets.UTF_8));
        }
        return form.toString();
    }

    private static Verdict failure(Throwable cause) {
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return Verdict.fail("siteverify connect timed out");
        }
        if (cause instanceof HttpTimeoutException) {
            return Verdict.fail("siteverify timed out");
        }
        if (cause instanceof AnswerTooLarge) {
            return Verdict.fail("siteverify answer larger than " + MAX_ANSWER_BYTES + " bytes");
        }
        return Verdict.fail("siteverify unreachable (" + cause.getClass().getSimpleName() + ")");
    }

    /** Only a 200 answer is read (and only so far); any other body is discarded. */
    private static BodySubscriber<byte[]> bodyIfOk(HttpResponse.ResponseInfo info) {
        return info.statusCode() == 200 ? new BoundedBody() : BodySubscribers.replacing(null);
    }

    /** Keeps printable name characters and a bounded length, so a hostile answer cannot forge log lines. */
    private static String echo(String value) {
        String kept = value.replaceAll("[^A-Za-z0-9._:-]", "?");
        return kept.length() <= MAX_ECHO_CHARS ? kept : kept.substring(0, MAX_ECHO_CHARS) + "...";
    }

    @Override
    public String toString() {
        return "TurnstileVerifier[url=" + siteverifyUrl + ", hostnames=" + hostnames + ", action=" + action + "]";
    }

    private static final class AnswerTooLarge extends IOException {
        AnswerTooLarge() {
            super("siteverify answer too large");
        }
    }

    /** Collects at most {@link #MAX_ANSWER_BYTES}, then cancels the stream. */
    private static final class BoundedBody implements BodySubscriber<byte[]> {
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private Flow.Subscription subscription;

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                if (body.isDone()) {
                    return;
                }
                if (bytes.size() + buffer.remaining() > MAX_ANSWER_BYTES) {
                    subscription.cancel();
                    body.completeExceptionally(new AnswerTooLarge());
                    return;
                }
                byte[] chunk = new byte[buffer.remaining()];
                buffer.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable error) {
            body.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            body.complete(bytes.toByteArray());
        }
    }
}
