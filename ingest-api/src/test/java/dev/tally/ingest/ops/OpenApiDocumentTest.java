package dev.tally.ingest.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.common.Rejection;
import dev.tally.ingest.ops.RouteTable.Route;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code openapi.json} is hand-written; these checks keep it honest against the code: it documents every
 * route the server registers (and no other), every failure an operation can answer is a problem document,
 * and every problem type the code can answer is catalogued with its status.
 *
 * <p>Routes come from {@link RouteTable}: the real router of {@code IngestApi} and {@code OpsRoutes}, and the
 * source of {@code RankingRoutes} (another module). The problem types come from the error table of
 * {@code docs/api.md}, from every
 * {@code new ApiProblem(status, "slug"…)}, {@code ApiProblem.unavailable("slug"…)} and
 * {@code ApiProblem.invalid(…)} in ingest-api's sources, and from the vote-processor's {@link Rejection}s.
 */
class OpenApiDocumentTest {
    private static final String TYPE_BASE = "https://tally.dev/problems/";
    private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete", "head", "options");

    private static JsonNode doc;
    private static Map<Route, JsonNode> operations;
    private static Map<String, Set<Integer>> catalogue;

    @BeforeAll
    static void read() throws IOException {
        doc = new ObjectMapper().readTree(OpsRoutes.openApiDocument());
        operations = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (METHODS.contains(op.getKey())) {
                    operations.put(Route.of(op.getKey(), path.getKey()), op.getValue());
                }
            }
        }
        catalogue = new TreeMap<>();
        for (JsonNode type : doc.at("/components/schemas/ProblemType/oneOf")) {
            Set<Integer> statuses = new TreeSet<>();
            type.path("x-tally-status").forEach(s -> statuses.add(s.asInt()));
            catalogue.put(slug(type.path("const").asText()), statuses);
        }
    }

    @Test
    void shouldBeAnOpenApi31Document() {
        assertThat(doc.path("openapi").asText()).matches("3\\.1\\.\\d+");
        assertThat(doc.at("/info/title").asText()).isNotBlank();
        assertThat(doc.at("/info/version").asText()).isNotBlank();
        assertThat(operations).hasSizeGreaterThanOrEqualTo(13);
        assertThat(doc.at("/components/securitySchemes").fieldNames()).toIterable()
                .contains("bearerJwt", "voterCookie", "gatewayUser", "adminToken");
        assertThat(doc.at("/components/securitySchemes/voterCookie/name").asText()).isEqualTo("tally_vid");
        assertThat(doc.at("/components/securitySchemes/gatewayUser/name").asText()).isEqualTo("X-Tally-User");
    }

    @Test
    void shouldReadTheRouteTableFromTheRouterNotFromAList() throws IOException {
        Set<Route> registered = RouteTable.ingestApi();
        Path source = RouteTable.repositoryRoot().resolve("ingest-api/src/main/java/dev/tally/ingest/IngestApi.java");

        // every literal registration in IngestApi.java is in what the router reports: the enumeration works
        assertThat(RouteTable.fromSource(source)).isNotEmpty();
        assertThat(registered).containsAll(RouteTable.fromSource(source));
        assertThat(RouteTable.ops()).contains(Route.of("GET", "/metrics"), Route.of("GET", "/openapi.json"));
        assertThat(RouteTable.rankings()).containsExactlyInAnyOrder(Route.of("GET", "/v1/rankings/{}/top"),
                Route.of("GET", "/v1/rankings/{}"));
        assertThat(RouteTable.webhooks()).hasSize(8).contains(Route.of("POST", "/v1/admin/webhooks/{}/redeliver"));
    }

    @Test
    void shouldDocumentEveryRegisteredRoute() {
        Set<Route> registered = registered();

        assertThat(operations.keySet()).containsAll(registered);
    }

    @Test
    void shouldDocumentNoRouteThatIsNotRegistered() {
        Set<Route> registered = registered();
        List<Route> unregistered = operations.entrySet().stream()
                .filter(e -> !e.getValue().path("x-tally-static").asBoolean()) // static files: not router endpoints
                .map(Map.Entry::getKey).filter(r -> !registered.contains(r)).toList();

        assertThat(unregistered).isEmpty();
    }

    @Test
    void shouldAnswerEveryFailureAsAProblem() {
        operations.forEach((route, op) -> {
            assertThat(op.path("responses").has("500")).as("%s documents 500", route).isTrue();
            boolean takesInput = op.has("requestBody") || stream(op.path("parameters"))
                    .map(OpenApiDocumentTest::resolve).anyMatch(p -> Set.of("path", "query").contains(p.path("in").asText()));
            if (takesInput) {
                assertThat(op.path("responses").has("400")).as("%s takes input and documents 400", route).isTrue();
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = op.path("responses").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> response = it.next();
                int status = Integer.parseInt(response.getKey());
                if (status < 400 || (route.equals(Route.of("GET", "/readyz")) && status == 503)) {
                    continue; // /readyz answers load balancers a plain status object, not a problem
                }
                JsonNode schema = resolve(response.getValue()).at("/content/application~1problem+json/schema");
                assertThat(schema.isMissingNode()).as("%s %s is application/problem+json", route, status).isFalse();
                assertThat(schema.toString()).as("%s %s refers to Problem", route, status).contains("#/components/schemas/Problem");
                List<String> slugs = new ArrayList<>();
                schema.findValues("enum").forEach(e -> e.forEach(t -> slugs.add(slug(t.asText()))));
                assertThat(slugs).as("%s %s names its problem types", route, status).isNotEmpty();
                for (String slug : slugs) {
                    assertThat(catalogue).as("%s %s: %s is catalogued", route, status, slug).containsKey(slug);
                    assertThat(catalogue.get(slug)).as("%s %s: status of %s", route, status, slug).contains(status);
                }
                assertThat(schema.findValues("const")).as("%s %s: status const", route, status)
                        .allSatisfy(c -> assertThat(c.asInt()).isEqualTo(status));
            }
        });
    }

    @Test
    void shouldCatalogueExactlyTheProblemTypesOfTheApiReferenceWithTheirStatuses() throws IOException {
        Map<String, Set<Integer>> documented = apiReferenceProblemTypes();

        assertThat(documented).hasSizeGreaterThanOrEqualTo(30).containsKeys("invalid-request", "view-unavailable");
        assertThat(catalogue).isEqualTo(documented);
    }

    @Test
    void shouldCatalogueEveryProblemTypeTheCodeAnswersWithItsStatus() throws IOException {
        Map<String, Set<Integer>> answered = answeredByTheCode();

        assertThat(answered).containsKeys("invalid-request", "malformed-json", "view-unavailable");
        answered.forEach((slug, statuses) -> {
            assertThat(catalogue).as("%s is catalogued", slug).containsKey(slug);
            assertThat(catalogue.get(slug)).as("statuses of %s", slug).containsAll(statuses);
        });
    }

    /** {@code new ApiProblem(NNN, "slug"}, {@code ApiProblem.unavailable("slug"}, {@code ApiProblem.invalid(}, {@link Rejection}. */
    private static Map<String, Set<Integer>> answeredByTheCode() throws IOException {
        Pattern explicit = Pattern.compile("new ApiProblem\\(\\s*(\\d{3})\\s*,\\s*\"([a-z0-9-]+)\"");
        Pattern unavailable = Pattern.compile("ApiProblem\\.unavailable\\(\\s*\"([a-z0-9-]+)\"");
        Map<String, Set<Integer>> answered = new TreeMap<>();
        Path main = RouteTable.repositoryRoot().resolve("ingest-api/src/main/java");
        List<Path> sources;
        try (Stream<Path> files = Files.walk(main)) {
            sources = files.filter(f -> f.toString().endsWith(".java")).toList();
        }
        for (Path file : sources) {
            String source = Files.readString(file);
            Matcher m = explicit.matcher(source);
            while (m.find()) {
                answered.computeIfAbsent(m.group(2), s -> new TreeSet<>()).add(Integer.parseInt(m.group(1)));
            }
            m = unavailable.matcher(source);
            while (m.find()) {
                answered.computeIfAbsent(m.group(1), s -> new TreeSet<>()).add(503);
            }
            if (source.contains("ApiProblem.invalid(")) {
                answered.computeIfAbsent("invalid-request", s -> new TreeSet<>()).add(400);
            }
        }
        for (Rejection r : Rejection.values()) {
            answered.computeIfAbsent(r.slug, s -> new TreeSet<>()).add(r.status);
        }
        return answered;
    }

    /** The error table of {@code docs/api.md}: each row's slug and its statuses. */
    private static Map<String, Set<Integer>> apiReferenceProblemTypes() throws IOException {
        String reference = Files.readString(RouteTable.repositoryRoot().resolve("docs/api.md"));
        int table = reference.indexOf("\n## Errors");
        assertThat(table).as("docs/api.md has an Errors section").isPositive();
        Map<String, Set<Integer>> types = new TreeMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `([a-z]+(?:-[a-z]+)*)` \\| ([0-9, ]+) \\|").matcher(reference.substring(table));
        while (row.find()) {
            Set<Integer> statuses = new TreeSet<>();
            for (String status : row.group(2).split(",")) {
                statuses.add(Integer.parseInt(status.strip()));
            }
            assertThat(types.put(row.group(1), statuses)).as("%s is listed once", row.group(1)).isNull();
        }
        return types;
    }

    private static Set<Route> registered() {
        Set<Route> all = new TreeSet<>(RouteTable.ingestApi());
        all.addAll(RouteTable.ops());
        all.addAll(RouteTable.rankings());
        all.addAll(RouteTable.webhooks());
        return all;
    }

    private static JsonNode resolve(JsonNode node) {
        String ref = node.path("$ref").asText(null);
        return ref == null ? node : doc.at(ref.substring(1));
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        array.forEach(out::add);
        return out.stream();
    }

    private static String slug(String type) {
        assertThat(type).startsWith(TYPE_BASE);
        return type.substring(TYPE_BASE.length());
    }
}
