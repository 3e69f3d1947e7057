package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's {@code curl} examples, run as written against a live node, answer what the README shows.
 *
 * <p>Each {@code curl} command of a {@code bash} block is followed by {@code # } lines holding the answer it
 * prints. The test sends the same request (method, headers, body, path) and compares the answer with the
 * README's, field by field. Two fields vary by nature and are checked for their form only: {@code position}
 * (which partition the vote landed in) and {@code hot} (it counts from the item's first vote). The item id
 * and the user are made unique, because the test broker is shared with other tests.
 */
class ReadmeExamplesIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CURL = Pattern.compile("(?m)^curl (.*(?:\\\\\\n.*)*)\\n((?:# .*\\n)+)");
    private static final Pattern TOKEN = Pattern.compile("'([^']*)'|(\\S+)");

    private static TallyNode node;

    @BeforeAll
    static void start() throws InterruptedException {
        node = WalkingSkeletonIT.startAll(SharedBroker.dataDir("node"));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void theReadmesCurlExamplesAnswerWhatTheReadmeShows() throws Exception {
        String readme = Files.readString(repositoryRoot().resolve("README.md"));
        List<Example> examples = examples(readme);
        assertThat(examples).as("the README's curl examples with their answers").hasSizeGreaterThanOrEqualTo(3);

        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> unique = new LinkedHashMap<>();
        HttpClient http = HttpClient.newHttpClient();
        for (Example example : examples) {
            Request request = Request.parse(example.command());
            unique.putIfAbsent(request.user(), request.user() + "-" + suffix);
            request.itemId().ifPresent(id -> unique.putIfAbsent(id, "readme-" + id + "-" + suffix));

            HttpResponse<String> answer = http.send(request.build(node.httpPort(), unique), HttpResponse.BodyHandlers.ofString());

            JsonNode expected = JSON.readTree(renamed(example.output(), unique));
            JsonNode actual = JSON.readTree(answer.body());
            assertThat(withoutVaryingFields(actual)).as("%s\n%s", example.command(), answer.body())
                    .isEqualTo(withoutVaryingFields(expected));
        }
    }

    /** The {@code position} and {@code hot} fields, wherever they are, after checking their form. */
    private static JsonNode withoutVaryingFields(JsonNode answer) {
        JsonNode copy = answer.deepCopy();
        strip(copy);
        return copy;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            if (object.has("position")) {
                assertThat(object.get("position").asText()).matches("\\d+:\\d+(,\\d+:\\d+)*");
                object.remove("position");
            }
            if (object.has("hot")) {
                assertThat(object.get("hot").isNumber()).as("hot is a number").isTrue();
                object.remove("hot");
            }
            object.forEach(ReadmeExamplesIT::strip);
        }
    }

    record Example(String command, String output) {
    }

    static List<Example> examples(String readme) {
        List<Example> examples = new ArrayList<>();
        Matcher m = CURL.matcher(readme);
        while (m.find()) {
            String command = m.group(1).replace("\\\n", " ");
            String output = m.group(2).lines().map(l -> l.substring(2)).reduce("", (a, b) -> a + b);
            examples.add(new Example(command, output));
        }
        return examples;
    }

    private static String renamed(String text, Map<String, String> unique) {
        String out = text;
        for (Map.Entry<String, String> e : unique.entrySet()) {
            out = out.replace("\"" + e.getKey() + "\"", "\"" + e.getValue() + "\"").replace("/" + e.getKey(), "/" + e.getValue());
        }
        return out;
    }

    /** The parts of a curl command line this test understands: {@code -s -XPOST URL -H 'k: v' -d 'body'}. */
    record Request(String method, String path, Map<String, String> headers, String body) {
        static Request parse(String command) {
            String method = "GET";
            String url = null;
            Map<String, String> headers = new LinkedHashMap<>();
            String body = null;
            List<String> tokens = new ArrayList<>();
            Matcher t = TOKEN.matcher(command);
            while (t.find()) {
                tokens.add(t.group(1) != null ? t.group(1) : t.group(2));
            }
            for (int i = 0; i < tokens.size(); i++) {
                String token = tokens.get(i);
                if (token.equals("-s")) {
                    continue;
                } else if (token.startsWith("-X")) {
                    method = token.length() > 2 ? token.substring(2) : tokens.get(++i);
                } else if (token.equals("-H")) {
                    String[] header = tokens.get(++i).split(":\\s*", 2);
                    headers.put(header[0], header[1]);
                } else if (token.equals("-d")) {
                    body = tokens.get(++i);
                    method = method.equals("GET") ? "POST" : method;
                } else if (!token.startsWith("-")) {
                    url = token;
                } else {
                    throw new IllegalArgumentException("the README's curl uses " + token + ", which this test does not know");
                }
            }
            assertThat(url).as("the URL of %s", command).startsWith("localhost:8080/");
            return new Request(method, url.substring("localhost:8080".length()), headers, body);
        }

        String user() {
            return headers.get("X-Tally-User");
        }

        Optional<String> itemId() {
            Matcher id = Pattern.compile("\"item_id\":\"([^\"]+)\"").matcher(body == null ? "" : body);
            if (id.find()) {
                return Optional.of(id.group(1));
            }
            Matcher path = Pattern.compile("^/v1/votes/[^/]+/([^/?]+)$").matcher(this.path);
            return path.find() ? Optional.of(path.group(1)) : Optional.empty();
        }

        HttpRequest build(int port, Map<String, String> unique) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + renamed(path, unique)));
            headers.forEach((name, value) -> b.header(name, unique.getOrDefault(value, value)));
            b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(renamed(body, unique)));
            return b.build();
        }
    }

    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("tally")) && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }
}
