package dev.tally.ingest.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code openapi.json} as generated clients and linters read it, parsed by swagger-parser (the parser
 * behind the OpenAPI Generator): what a common linter (Redocly's recommended rules) reported is a build
 * failure here. Every operation declares its security ({@code []} for a public one); every component is
 * used; every operation documents a 4xx; every response header is named as the server sends it (a client
 * generated from {@code RetryAfter} looks for a header that never comes); every required property is
 * defined where it is required.
 */
class OpenApiLintTest {
    private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete", "head", "options");
    private static OpenAPI api;
    private static JsonNode doc;

    @BeforeAll
    static void parse() throws IOException {
        String json = new String(OpsRoutes.openApiDocument(), StandardCharsets.UTF_8);
        ParseOptions options = new ParseOptions();
        options.setResolve(false);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(json, null, options);
        assertThat(result.getMessages()).as("swagger-parser's messages").isEmpty();
        api = result.getOpenAPI();
        doc = new ObjectMapper().readTree(json);
    }

    private static Map<String, Operation> operations() {
        Map<String, Operation> ops = new java.util.TreeMap<>();
        api.getPaths().forEach((path, item) -> item.readOperationsMap()
                .forEach((method, op) -> ops.put(method + " " + path, op)));
        return ops;
    }

    @Test
    void everyOperationDeclaresItsSecurityWithKnownSchemes() {
        Set<String> schemes = api.getComponents().getSecuritySchemes().keySet();
        assertThat(operations()).isNotEmpty().allSatisfy((name, op) -> {
            assertThat(op.getSecurity()).as("%s declares security ([] when public)", name).isNotNull();
            op.getSecurity().forEach(requirement -> assertThat(schemes).as(name).containsAll(requirement.keySet()));
        });
    }

    @Test
    void everyOperationDocumentsA4xx() {
        assertThat(operations()).allSatisfy((name, op) -> assertThat(op.getResponses().keySet())
                .as("%s documents a 4xx", name).anyMatch(status -> status.startsWith("4")));
    }

    @Test
    void everyResponseHeaderIsNamedAsTheServerSendsIt() throws IOException {
        String sources = mainSources();
        Set<String> documented = new TreeSet<>();
        operations().values().forEach(op -> op.getResponses().values().forEach(r -> {
            if (r.getHeaders() != null) {
                documented.addAll(r.getHeaders().keySet());
            }
        }));
        Map<String, ApiResponse> shared = api.getComponents().getResponses();
        (shared == null ? Map.<String, ApiResponse>of() : shared).values().forEach(r -> {
            if (r.getHeaders() != null) {
                documented.addAll(r.getHeaders().keySet());
            }
        });
        assertThat(documented).contains("Retry-After", "WWW-Authenticate", "Tally-Position");
        assertThat(documented).allSatisfy(name -> assertThat(sources)
                .as("the header %s appears, so spelt, in ingest-api's sources", name).contains("\"" + name + "\""));
    }

    @Test
    void everyComponentIsUsed() {
        Set<String> reached = new TreeSet<>();
        Deque<JsonNode> todo = new ArrayDeque<>(List.of(doc.path("paths")));
        while (!todo.isEmpty()) {
            List<String> refs = new ArrayList<>();
            refsOutsideExtensions(todo.pop(), refs);
            for (String pointer : refs) {
                // a ref into a component's insides uses the component: #/components/schemas/X/properties/y
                String[] parts = pointer.substring(2).split("/");
                String component = "/" + parts[0] + "/" + parts[1] + "/" + parts[2];
                if (reached.add(component)) {
                    todo.push(doc.at(component));
                }
            }
        }
        Set<String> unused = new TreeSet<>();
        for (String kind : List.of("schemas", "parameters", "headers", "responses", "requestBodies", "examples")) {
            for (Iterator<String> names = doc.path("components").path(kind).fieldNames(); names.hasNext(); ) {
                String component = "/components/" + kind + "/" + names.next();
                if (!reached.contains(component)) {
                    unused.add(component);
                }
            }
        }
        Set<String> schemesUsed = operations().values().stream().filter(op -> op.getSecurity() != null)
                .flatMap(op -> op.getSecurity().stream()).flatMap(r -> r.keySet().stream()).collect(Collectors.toSet());
        api.getComponents().getSecuritySchemes().keySet().stream().filter(s -> !schemesUsed.contains(s))
                .forEach(s -> unused.add("/components/securitySchemes/" + s));
        assertThat(unused).as("components nothing refers to").isEmpty();
    }

    /** Every {@code $ref} under the node, except inside {@code x-} extensions (which clients and linters ignore). */
    private static void refsOutsideExtensions(JsonNode node, List<String> refs) {
        if (node.isObject()) {
            node.fields().forEachRemaining(field -> {
                if (field.getKey().equals("$ref")) {
                    refs.add(field.getValue().asText());
                } else if (!field.getKey().startsWith("x-")) {
                    refsOutsideExtensions(field.getValue(), refs);
                }
            });
        } else if (node.isArray()) {
            node.forEach(element -> refsOutsideExtensions(element, refs));
        }
    }

    @Test
    void everyRequiredPropertyIsDefinedWhereItIsRequired() {
        List<String> undefined = new ArrayList<>();
        api.getComponents().getSchemas().forEach((name, schema) -> requiredDefined(name, schema, undefined));
        assertThat(undefined).isEmpty();
    }

    @SuppressWarnings("rawtypes")
    private static void requiredDefined(String where, Schema schema, List<String> undefined) {
        if (schema == null) {
            return;
        }
        if (schema.getRequired() != null && schema.get$ref() == null) {
            for (Object required : schema.getRequired()) {
                if (schema.getProperties() == null || !schema.getProperties().containsKey(required)) {
                    undefined.add(where + " requires " + required);
                }
            }
        }
        Stream.of(schema.getOneOf(), schema.getAnyOf(), schema.getAllOf()).filter(java.util.Objects::nonNull)
                .forEach(list -> {
                    for (int i = 0; i < list.size(); i++) {
                        requiredDefined(where + "/" + i, (Schema) list.get(i), undefined);
                    }
                });
        requiredDefined(where + "/not", schema.getNot(), undefined);
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((k, v) -> requiredDefined(where + "." + k, (Schema) v, undefined));
        }
    }

    private static String mainSources() throws IOException {
        Path main = RouteTable.repositoryRoot().resolve("ingest-api/src/main/java");
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                all.append(Files.readString(f));
            }
        }
        return all.toString();
    }
}
