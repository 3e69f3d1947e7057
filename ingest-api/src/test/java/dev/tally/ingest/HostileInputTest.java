package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Everything a hostile client can send, against the real HTTP API: each bad request gets its specific
 * problem+json and submits nothing; a generated run of 10,000 random and mutated requests never gets a
 * 5xx, and only valid votes reach the command topic.
 */
class HostileInputTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VALID = "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1}";
    private static TestApi api;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() {
        api = new TestApi();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    /** One hostile request and the answer it must get. */
    record Case(String name, String method, String path, Map<String, String> headers, String body, int status, String type) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Map<String, String> h(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static final Map<String, String> OK = h("Content-Type", "application/json", "X-Tally-User", "mallory");

    private static Case post(String name, String body, int status, String type) {
        return new Case(name, "POST", "/v1/votes", OK, body, status, type);
    }

    private static String with(String fields) {
        return "{\"item_type\":\"post\",\"item_id\":\"1\"," + fields + "}";
    }

    static Stream<Case> cases() {
        List<Case> c = new ArrayList<>();
        // transport: method, path, media type, size, origin
        c.add(new Case("GET on the write path is not a write", "PUT", "/v1/votes", OK, VALID, 405, "method-not-allowed"));
        c.add(new Case("DELETE on votes", "DELETE", "/v1/votes", OK, null, 405, "method-not-allowed"));
        c.add(new Case("trailing slash", "POST", "/v1/votes/", OK, VALID, 404, "not-found"));
        c.add(new Case("unknown path", "POST", "/v1/vote", OK, VALID, 404, "not-found"));
        c.add(new Case("path traversal", "GET", "/v1/votes/post/..%2F..%2Fetc", OK, null, 400, "invalid-request"));
        c.add(new Case("no content type", "POST", "/v1/votes", h("X-Tally-User", "m"), VALID, 415, "unsupported-media-type"));
        c.add(new Case("text/plain", "POST", "/v1/votes", h("Content-Type", "text/plain", "X-Tally-User", "m"), VALID, 415, "unsupported-media-type"));
        c.add(new Case("form encoded", "POST", "/v1/votes", h("Content-Type", "application/x-www-form-urlencoded", "X-Tally-User", "m"), "a=1", 415, "unsupported-media-type"));
        c.add(new Case("json lookalike", "POST", "/v1/votes", h("Content-Type", "application/jsonp", "X-Tally-User", "m"), VALID, 415, "unsupported-media-type"));
        c.add(post("body over 4 KiB", with("\"mode\":\"" + "x".repeat(5000) + "\",\"vote_value\":1"), 413, "body-too-large"));
        c.add(new Case("foreign origin", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "m", "Origin", "https://evil.example"), VALID, 403, "origin-not-allowed"));
        c.add(new Case("null origin", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "m", "Origin", "null"), VALID, 403, "origin-not-allowed"));
        // JSON shape
        c.add(post("empty body", "", 400, "malformed-json"));
        c.add(post("truncated", "{\"item_type\":\"post\"", 400, "malformed-json"));
        c.add(post("trailing garbage", VALID + "x", 400, "malformed-json"));
        c.add(post("array", "[" + VALID + "]", 400, "invalid-request"));
        c.add(post("string", "\"vote\"", 400, "invalid-request"));
        c.add(post("number", "1", 400, "invalid-request"));
        c.add(post("null", "null", 400, "invalid-request"));
        c.add(post("duplicate key", with("\"vote_value\":1,\"vote_value\":-1"), 400, "malformed-json"));
        c.add(post("unknown key", with("\"vote_value\":1,\"weight\":100"), 400, "unknown-field"));
        c.add(post("prototype pollution key", with("\"vote_value\":1,\"__proto__\":{}"), 400, "unknown-field"));
        c.add(post("camelCase key", "{\"itemType\":\"post\",\"item_id\":\"1\",\"vote_value\":1}", 400, "unknown-field"));
        c.add(post("comment in JSON", "/* hi */" + VALID, 400, "malformed-json"));
        c.add(post("single quotes", "{'item_type':'post','item_id':'1','vote_value':1}", 400, "malformed-json"));
        // vote_value
        c.add(post("vote 1.0", with("\"vote_value\":1.0"), 400, "invalid-request"));
        c.add(post("vote \"1\"", with("\"vote_value\":\"1\""), 400, "invalid-request"));
        c.add(post("vote 2", with("\"vote_value\":2"), 400, "invalid-request"));
        c.add(post("vote -2", with("\"vote_value\":-2"), 400, "invalid-request"));
        c.add(post("vote huge", with("\"vote_value\":1" + "0".repeat(30)), 400, "invalid-request"));
        c.add(post("vote 1e0", with("\"vote_value\":1e0"), 400, "invalid-request"));
        c.add(post("vote true", with("\"vote_value\":true"), 400, "invalid-request"));
        c.add(post("vote null", with("\"vote_value\":null"), 400, "invalid-request"));
        c.add(post("vote object", with("\"vote_value\":{}"), 400, "invalid-request"));
        c.add(post("vote and reaction", with("\"vote_value\":1,\"reaction\":\"like\""), 400, "invalid-request"));
        c.add(post("neither", with("\"mode\":\"set\""), 400, "invalid-request"));
        // ids
        c.add(post("missing item_type", "{\"item_id\":\"1\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("missing item_id", "{\"item_type\":\"post\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("uppercase type", "{\"item_type\":\"Post\",\"item_id\":\"1\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("type too long", "{\"item_type\":\"p" + "x".repeat(32) + "\",\"item_id\":\"1\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("id too long", "{\"item_type\":\"post\",\"item_id\":\"" + "1".repeat(65) + "\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("id with slash", "{\"item_type\":\"post\",\"item_id\":\"a/b\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("id with unicode", "{\"item_type\":\"post\",\"item_id\":\"\\u00e9\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("id with NUL", "{\"item_type\":\"post\",\"item_id\":\"a\\u0000\",\"vote_value\":1}", 400, "invalid-request"));
        c.add(post("id number", "{\"item_type\":\"post\",\"item_id\":7,\"vote_value\":1}", 400, "invalid-request"));
        // mode, reaction, catalogue
        c.add(post("mode flip", with("\"vote_value\":1,\"mode\":\"flip\""), 400, "invalid-request"));
        c.add(post("mode TOGGLE", with("\"vote_value\":1,\"mode\":\"TOGGLE\""), 400, "invalid-request"));
        c.add(post("unknown reaction", with("\"reaction\":\"meh\""), 400, "unknown-reaction"));
        c.add(post("retired reaction", with("\"reaction\":\"sad\""), 400, "retired-reaction"));
        c.add(post("reaction uppercase", with("\"reaction\":\"LIKE\""), 400, "invalid-request"));
        c.add(post("reaction array", with("\"reaction\":[\"like\"]"), 400, "invalid-request"));
        c.add(post("locked item", "{\"item_type\":\"post\",\"item_id\":\"locked\",\"vote_value\":1}", 409, "item-locked"));
        c.add(post("deleted item", "{\"item_type\":\"post\",\"item_id\":\"deleted\",\"vote_value\":1}", 404, "item-not-found"));
        c.add(post("catalogue version 2", with("\"vote_value\":1,\"catalog_version\":2"), 409, "catalog-version"));
        c.add(post("catalogue version 0", with("\"vote_value\":1,\"catalog_version\":0"), 400, "invalid-request"));
        // identity and keys
        c.add(new Case("bad user header", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "a b"), VALID, 401, "bad-credentials"));
        c.add(new Case("malformed JWT", "POST", "/v1/votes", h("Content-Type", "application/json", "Authorization", "Bearer not.a.jwt"), VALID, 401, "bad-credentials"));
        c.add(new Case("JWT when none are accepted", "POST", "/v1/votes", h("Content-Type", "application/json", "Authorization",
                "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4IiwiZXhwIjo0MTAyNDQ0ODAwfQ.c2lnbmF0dXJl"), VALID, 401, "bad-credentials"));
        c.add(new Case("challenged network without a token", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "m", "X-Forwarded-For", "192.0.2.1"), VALID, 403, "challenge-required"));
        c.add(new Case("challenged network with a bad token", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "m", "X-Forwarded-For", "192.0.2.1", "X-Tally-Challenge", "nope"), VALID, 403, "challenge-failed"));
        c.add(new Case("quarantine list without token", "GET", "/v1/admin/quarantine", h(), null, 401, "admin-token-required"));
        c.add(new Case("release unknown", "POST", "/v1/admin/quarantine/nope/release", h("Authorization", "Bearer " + TestApi.ADMIN_TOKEN), null, 404, "not-held"));
        c.add(new Case("idempotency key too long", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "m", "Idempotency-Key", "k".repeat(65)), VALID, 400, "invalid-idempotency-key"));
        c.add(new Case("idempotency key with space", "POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "m", "Idempotency-Key", "a b"), VALID, 400, "invalid-idempotency-key"));
        // reads and admin
        c.add(new Case("read bad type", "GET", "/v1/votes/POST/1", h(), null, 400, "invalid-request"));
        c.add(new Case("batch too many", "GET", "/v1/votes/post?ids=" + "a,".repeat(100) + "a", h(), null, 400, "invalid-request"));
        c.add(new Case("batch missing ids", "GET", "/v1/votes/post", h(), null, 400, "invalid-request"));
        c.add(new Case("batch bad id", "GET", "/v1/votes/post?ids=a,b%20c", h(), null, 400, "invalid-request"));
        c.add(new Case("admin without token", "PUT", "/v1/admin/reactions/party", h("Content-Type", "application/json"), "{\"label\":\"P\"}", 401, "admin-token-required"));
        c.add(new Case("admin wrong token", "PUT", "/v1/admin/reactions/party", h("Content-Type", "application/json", "Authorization", "Bearer nope"), "{\"label\":\"P\"}", 401, "admin-token-required"));
        c.add(new Case("admin bad code", "PUT", "/v1/admin/reactions/Party!", h("Content-Type", "application/json", "Authorization", "Bearer " + TestApi.ADMIN_TOKEN), "{\"label\":\"P\"}", 400, "invalid-request"));
        c.add(new Case("admin unknown field", "PUT", "/v1/admin/reactions/party", h("Content-Type", "application/json", "Authorization", "Bearer " + TestApi.ADMIN_TOKEN), "{\"label\":\"P\",\"active\":false}", 400, "unknown-field"));
        c.add(new Case("admin javascript icon", "PUT", "/v1/admin/reactions/party", h("Content-Type", "application/json", "Authorization", "Bearer " + TestApi.ADMIN_TOKEN), "{\"label\":\"P\",\"icon_url\":\"javascript:alert(1)\"}", 400, "invalid-request"));
        c.add(new Case("retire unknown", "DELETE", "/v1/admin/reactions/nothing", h("Authorization", "Bearer " + TestApi.ADMIN_TOKEN), null, 404, "unknown-reaction"));
        c.add(new Case("stream for an Accept that excludes it", "GET", "/v1/stream?items=post:1",
                h("Accept", "application/json"), null, 406, "not-acceptable"));
        c.add(new Case("stream with text/event-stream at q=0", "GET", "/v1/stream?items=post:1",
                h("Accept", "text/event-stream;q=0, application/json"), null, 406, "not-acceptable"));
        c.add(new Case("stream bad item", "GET", "/v1/stream?items=post", h("Accept", "text/event-stream"), null, 400, "invalid-request"));
        return c.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void shouldRefuseWithItsSpecificProblemAndSubmitNothing(Case c) throws Exception {
        int before = api.submitted.size();

        HttpResponse<String> r = send(c.method(), c.path(), c.headers(), c.body());

        assertThat(r.statusCode()).as(c.name() + ": " + r.body()).isEqualTo(c.status());
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        JsonNode problem = JSON.readTree(r.body());
        assertThat(problem.get("type").asText()).isEqualTo("https://tally.dev/problems/" + c.type());
        assertThat(problem.get("status").asInt()).isEqualTo(c.status());
        assertThat(problem.get("title").asText()).isNotBlank();
        assertThat(problem.get("detail").asText()).isNotBlank();
        assertThat(api.submitted.size()).as("nothing submitted").isEqualTo(before);
    }

    @Test
    void tableCoversAtLeastFiftyCases() {
        assertThat(cases().count()).isGreaterThanOrEqualTo(50);
    }

    @Test
    void aValidVoteIsSubmittedOnce() throws Exception {
        int before = api.submitted.size();

        HttpResponse<String> r = send("POST", "/v1/votes", OK, VALID);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(api.submitted.size()).isEqualTo(before + 1);
        assertThat(api.submitted.get(api.submitted.size() - 1).getVoter()).doesNotContain("mallory").hasSize(64);
        assertThat(api.submitted.get(api.submitted.size() - 1).getAnonymous()).as("a gateway's signed-in user").isFalse();
    }

    @Test
    void aVoterWithoutIdentityIsIssuedASignedCookieAndKeepsItsIdentity() throws Exception {
        HttpResponse<String> first = send("POST", "/v1/votes", h("Content-Type", "application/json"), VALID);

        assertThat(first.statusCode()).isEqualTo(200);
        String setCookie = first.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).startsWith("tally_vid=").contains("HttpOnly", "SameSite=Lax", "Path=/v1").doesNotContain("Secure");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        String firstVoter = api.submitted.get(api.submitted.size() - 1).getVoter();
        assertThat(api.submitted.get(api.submitted.size() - 1).getAnonymous()).as("known by a cookie only").isTrue();

        HttpResponse<String> again = send("POST", "/v1/votes", h("Content-Type", "application/json", "Cookie", cookie), VALID);
        assertThat(again.headers().firstValue("Set-Cookie")).as("a valid cookie is kept").isEmpty();
        assertThat(api.submitted.get(api.submitted.size() - 1).getVoter()).isEqualTo(firstVoter);
        assertThat(firstVoter).doesNotContain(cookie.substring("tally_vid=".length(), 20));

        String tampered = cookie.substring(0, 12) + (cookie.charAt(12) == 'A' ? 'B' : 'A') + cookie.substring(13);
        HttpResponse<String> forged = send("POST", "/v1/votes", h("Content-Type", "application/json", "Cookie", tampered), VALID);
        assertThat(forged.headers().firstValue("Set-Cookie")).as("a tampered cookie is a new voter: %s %s %s",
                forged.statusCode(), forged.headers().map(), forged.body()).isPresent();
        assertThat(api.submitted.get(api.submitted.size() - 1).getVoter()).isNotEqualTo(firstVoter);
    }

    @Test
    void aCookieAlteredOnlyInTheCaseOfOneLetterIsANewVoterOnTheSameConnection() throws Exception {
        String setCookie = send("POST", "/v1/votes", h("Content-Type", "application/json"), VALID)
                .headers().firstValue("Set-Cookie").orElseThrow();
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        send("POST", "/v1/votes", h("Content-Type", "application/json", "Cookie", cookie), VALID); // parsed and cached by Jetty
        String firstVoter = api.submitted.get(api.submitted.size() - 1).getVoter();
        int at = -1;
        for (int i = "tally_vid=".length(); i < cookie.indexOf('.'); i++) {
            if (Character.isLetter(cookie.charAt(i))) {
                at = i;
                break;
            }
        }
        char c = cookie.charAt(at);
        String recased = cookie.substring(0, at) + (Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c))
                + cookie.substring(at + 1);

        HttpResponse<String> forged = send("POST", "/v1/votes", h("Content-Type", "application/json", "Cookie", recased), VALID);
        assertThat(forged.headers().firstValue("Set-Cookie")).as("a re-cased cookie is a new voter").isPresent();
        assertThat(api.submitted.get(api.submitted.size() - 1).getVoter()).isNotEqualTo(firstVoter);
    }

    @Test
    void aChallengedNetworkPassesWithAValidToken() throws Exception {
        int before = api.submitted.size();

        HttpResponse<String> r = send("POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "solver",
                "X-Forwarded-For", "192.0.2.1", "X-Tally-Challenge", "dev-pass"), VALID);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(api.submitted.size()).isEqualTo(before + 1);
    }

    @Test
    void everyCommandCarriesTheHashedNetworkNeverTheAddress() throws Exception {
        send("POST", "/v1/votes", h("Content-Type", "application/json", "X-Tally-User", "netuser", "X-Forwarded-For", "198.51.100.23"), VALID);

        var command = api.submitted.get(api.submitted.size() - 1);
        assertThat(command.getNetwork()).hasSize(64).matches("[0-9a-f]+");
        assertThat(command.toString()).doesNotContain("198.51.100", "127.0.0.1", "netuser");
    }

    @Test
    void aChunkedBodyOverTheLimitIsRefusedWithoutReadingItWhole() throws Exception {
        byte[] big = ("{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"mode\":\"" + "x".repeat(10_000) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/v1/votes"))
                .header("Content-Type", "application/json").header("X-Tally-User", "m")
                .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofByteArray(big))); // no length: chunked

        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.body()).contains("body-too-large");
    }

    @Test
    void requestsJettyRefusesBeforeAnyRouteAreAnsweredAsProblemsToo() throws Exception {
        HttpResponse<String> headers = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/healthz"))
                .header("X-Padding", "a".repeat(ProtocolErrors.MAX_HEADER_BYTES)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(headers.statusCode()).isEqualTo(431);
        assertThat(headers.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JSON.readTree(headers.body()).get("type").asText()).isEqualTo(ApiProblem.TYPE_BASE + "headers-too-large");

        HttpResponse<String> uri = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port()
                + "/v1/votes/post/" + "1".repeat(ProtocolErrors.MAX_HEADER_BYTES))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(uri.statusCode()).isEqualTo(414);
        assertThat(JSON.readTree(uri.body()).get("type").asText()).isEqualTo(ApiProblem.TYPE_BASE + "uri-too-long");
    }

    @Test
    void tenThousandRandomAndMutatedRequestsNeverGet5xxAndOnlyValidVotesCount() throws Exception {
        Random random = new Random(20261130);
        String[] paths = {"/v1/votes", "/v1/votes/post/1", "/v1/votes/post?ids=1,2", "/v1/reactions", "/v1/admin/reactions/x",
                "/v1/stream?items=post:1", "/healthz", "/readyz", "/v1/votes/../../etc/passwd", "/", "/v1", "/v1/votes/%00/1"};
        String[] methods = {"POST", "POST", "POST", "GET", "PUT", "DELETE", "PATCH", "OPTIONS"};
        String[] contentTypes = {"application/json", "application/json; charset=utf-8", "text/plain", "", "application/xml",
                "APPLICATION/JSON", "application/json;charset=latin1"};
        String[] seeds = {VALID, with("\"reaction\":\"love\",\"mode\":\"set\""), with("\"reaction\":null"),
                with("\"vote_value\":-1,\"catalog_version\":1"), with("\"vote_value\":0,\"mode\":\"toggle\"")};
        int fiveHundreds = 0;
        for (int i = 0; i < 10_000; i++) {
            String method = methods[random.nextInt(methods.length)];
            String path = random.nextInt(4) == 0 ? mutate(paths[random.nextInt(paths.length)], random) : paths[random.nextInt(paths.length)];
            if (!path.startsWith("/") || path.contains(" ") || !isAscii(path)) {
                path = "/v1/votes";
            }
            Map<String, String> headers = new LinkedHashMap<>();
            String ct = contentTypes[random.nextInt(contentTypes.length)];
            if (!ct.isEmpty()) {
                headers.put("Content-Type", ct);
            }
            if (random.nextInt(5) > 0) {
                headers.put("X-Tally-User", random.nextInt(20) == 0 ? "bad user" : "fuzz" + random.nextInt(50));
            }
            if (random.nextInt(10) == 0) {
                headers.put("Idempotency-Key", mutate("key-" + random.nextInt(9), random).replaceAll("[^\\x21-\\x7e]", "~"));
            }
            if (random.nextInt(15) == 0) {
                headers.put("Origin", random.nextBoolean() ? TestApi.ORIGIN : "https://elsewhere.example");
            }
            String body = random.nextInt(3) == 0 ? seeds[random.nextInt(seeds.length)] : mutate(seeds[random.nextInt(seeds.length)], random);
            int before = api.submitted.size();
            String sent = method.equals("GET") || method.equals("DELETE") ? null : body;
            HttpResponse<String> r;
            try {
                r = send(method, path, headers, sent);
            } catch (IllegalArgumentException e) {
                continue; // the client refused to send it (illegal header or URI): nothing reached the server
            } catch (java.io.IOException e) {
                // Jetty closes a connection after refusing a body it did not read (413); the client may have
                // reused it. The same request on a fresh connection must get a proper answer.
                r = HttpClient.newHttpClient().send(request(method, path, headers, sent), STATUS_OF_A_STREAM);
            }
            if (r.statusCode() >= 500) {
                fiveHundreds++;
                System.out.println("5xx for " + method + " " + path + " " + headers + " " + body + " -> " + r.body());
            }
            int added = api.submitted.size() - before;
            if (r.statusCode() == 200 && method.equals("POST") && path.equals("/v1/votes")) {
                assertThat(added).as("an accepted vote is submitted once").isEqualTo(1);
            } else {
                assertThat(added).as("%s %s %s -> %d submitted nothing", method, path, body, r.statusCode()).isZero();
            }
        }
        assertThat(fiveHundreds).isZero();
    }

    private static boolean isAscii(String s) {
        return s.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f);
    }

    /** Deletes, duplicates, swaps or replaces a few characters, sometimes with structural JSON characters. */
    private static String mutate(String s, Random random) {
        StringBuilder b = new StringBuilder(s);
        String alphabet = "{}[]\":,0123456789-.eEtrufalsn \\u0000\u00e9/abcxyz";
        for (int n = 1 + random.nextInt(4); n > 0 && b.length() > 0; n--) {
            int at = random.nextInt(b.length());
            switch (random.nextInt(4)) {
                case 0 -> b.deleteCharAt(at);
                case 1 -> b.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
                case 2 -> b.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
                default -> b.insert(at, b.substring(at, Math.min(b.length(), at + 1 + random.nextInt(8))));
            }
        }
        return b.toString();
    }

    private static HttpResponse<String> send(String method, String path, Map<String, String> headers, String body) throws Exception {
        return HTTP.send(request(method, path, headers, body), STATUS_OF_A_STREAM);
    }

    /**
     * The body as a string, except a live stream's (it never ends): its status and headers are the answer,
     * and the connection is dropped at once, as a client that only probes would.
     */
    private static final HttpResponse.BodyHandler<String> STATUS_OF_A_STREAM = info ->
            info.headers().firstValue("Content-Type").filter(t -> t.startsWith("text/event-stream")).isPresent()
                    ? new HttpResponse.BodySubscriber<>() {
                        @Override
                        public java.util.concurrent.CompletionStage<String> getBody() {
                            return java.util.concurrent.CompletableFuture.completedFuture("(a live stream, not read)");
                        }

                        @Override
                        public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
                            subscription.cancel();
                        }

                        @Override
                        public void onNext(List<java.nio.ByteBuffer> item) {}

                        @Override
                        public void onError(Throwable throwable) {}

                        @Override
                        public void onComplete() {}
                    }
                    : HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);

    private static HttpRequest request(String method, String path, Map<String, String> headers, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path)).timeout(Duration.ofSeconds(10));
        headers.forEach(b::header);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return b.build();
    }

}
