package dev.tally.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tally.common.Env;
import dev.tally.common.Profile;
import dev.tally.common.Secrets;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./tally webhooks …}: the admin API's webhook routes from the command line. Each subcommand is one request
 * to a node; the answer is printed as JSON, a refusal's detail on stderr with exit 1.
 */
@Command(name = "webhooks", mixinStandardHelpOptions = true,
        header = "Creates, lists, pauses, rotates and redelivers webhook subscriptions through a node's admin API.",
        subcommands = {WebhooksCommand.ListCommand.class, WebhooksCommand.Create.class, WebhooksCommand.Show.class,
                WebhooksCommand.Pause.class, WebhooksCommand.Resume.class, WebhooksCommand.Delete.class,
                WebhooksCommand.Rotate.class, WebhooksCommand.Redeliver.class, WebhooksCommand.Deliveries.class})
final class WebhooksCommand implements Runnable {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public void run() {
        System.err.println("webhooks: say list, create, show, pause, resume, delete, rotate-secret, redeliver or deliveries"
                + " (./tally webhooks --help)");
    }

    /** Where the node is and the admin token (a picocli mixin). */
    static final class Node {
        @Option(names = "--url", paramLabel = "URL", description = "a node's HTTP address [http://127.0.0.1:$TALLY_HTTP_PORT, 8080]")
        String url;

        @Option(names = "--admin-token", paramLabel = "TOKEN",
                description = "[TALLY_ADMIN_TOKEN; in the dev profile, derived from the secret in $TALLY_DATA_DIR as ./tally up does]")
        String adminToken;

        String base(Env env) {
            return url != null ? url.replaceAll("/+$", "") : "http://127.0.0.1:" + env.integer("TALLY_HTTP_PORT", 8080, 1, 65535);
        }

        String token(Env env) {
            if (adminToken != null) {
                return adminToken;
            }
            var given = env.secret("TALLY_ADMIN_TOKEN");
            if (given.isPresent()) {
                return given.get();
            }
            Profile profile = Profile.from(env);
            Path dataDir = env.path("TALLY_DATA_DIR", "data");
            if (profile.isDev() && (env.get("TALLY_SECRET").isPresent() || Files.exists(dataDir.resolve("secret")))) {
                return HexFormat.of().formatHex(Secrets.from(env, profile, dataDir).derive("admin-token")).substring(0, 32);
            }
            throw new Env.ConfigException("no admin token: give --admin-token or TALLY_ADMIN_TOKEN (./tally up prints it)");
        }

        /** Sends one request; prints the answer; 0 for a 2xx. */
        int call(String method, String path, JsonNode body) throws Exception {
            Env env = Env.system();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base(env) + path)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + token(env));
            if (body == null) {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            }
            HttpResponse<String> answer;
            try {
                answer = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.net.ConnectException e) {
                System.err.println("webhooks: no node answers at " + base(env) + "; is ./tally up running? Give --url");
                return 1;
            }
            if (answer.statusCode() >= 300) {
                JsonNode problem = answer.body().isEmpty() ? null : JSON.readTree(answer.body());
                System.err.println("webhooks: " + answer.statusCode() + " " + (problem != null && problem.has("detail")
                        ? problem.get("detail").asText() : answer.body()));
                return 1;
            }
            if (!answer.body().isEmpty()) {
                System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(answer.body())));
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, header = "Every subscription, with its status, lag and last attempt.")
    static final class ListCommand implements Callable<Integer> {
        @Mixin
        Node node;

        @Override
        public Integer call() throws Exception {
            return node.call("GET", "/v1/admin/webhooks", null);
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            header = "Subscribes a URL; prints the subscription and its secret (shown only once).")
    static final class Create implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "URL", description = "where deliveries are POSTed (https)")
        String url;

        @Option(names = "--item-type", paramLabel = "TYPE", description = "send the items of this type (repeatable)")
        List<String> itemTypes = List.of();

        @Option(names = "--item", paramLabel = "TYPE:ID", description = "send this item (repeatable)")
        List<String> items = List.of();

        @Option(names = "--coalesce-ms", paramLabel = "MS", description = "at most one delivery per item per MS [1000]")
        Integer coalesceMs;

        @Option(names = "--snapshot", description = "first send the current counts of every matching item")
        boolean snapshot;

        @Mixin
        Node node;

        @Override
        public Integer call() throws Exception {
            ObjectNode body = JSON.createObjectNode().put("url", url);
            if (!itemTypes.isEmpty()) {
                itemTypes.forEach(body.putArray("item_types")::add);
            }
            if (!items.isEmpty()) {
                items.forEach(body.putArray("items")::add);
            }
            if (coalesceMs != null) {
                body.put("coalesce_ms", coalesceMs);
            }
            if (snapshot) {
                body.put("start", "snapshot");
            }
            return node.call("POST", "/v1/admin/webhooks", body);
        }
    }

    /** A subcommand that names one subscription. */
    abstract static class One implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "ID", description = "the subscription (wh_…)")
        String id;

        @Mixin
        Node node;

        String path() {
            return "/v1/admin/webhooks/" + URLEncoder.encode(id, StandardCharsets.UTF_8);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, header = "One subscription.")
    static final class Show extends One {
        @Override
        public Integer call() throws Exception {
            return node.call("GET", path(), null);
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, header = "Stops sending; the subscription keeps its place.")
    static final class Pause extends One {
        @Override
        public Integer call() throws Exception {
            return node.call("PATCH", path(), JSON.createObjectNode().put("status", "paused"));
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, header = "Sends again from where it stopped (a disabled subscription too).")
    static final class Resume extends One {
        @Override
        public Integer call() throws Exception {
            return node.call("PATCH", path(), JSON.createObjectNode().put("status", "active"));
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, header = "Deletes a subscription.")
    static final class Delete extends One {
        @Override
        public Integer call() throws Exception {
            int exit = node.call("DELETE", path(), null);
            if (exit == 0) {
                System.out.println("deleted " + id);
            }
            return exit;
        }
    }

    @Command(name = "rotate-secret", mixinStandardHelpOptions = true,
            header = "A new secret; the previous one signs beside it for 24 hours.")
    static final class Rotate extends One {
        @Override
        public Integer call() throws Exception {
            return node.call("POST", path() + "/rotate-secret", null);
        }
    }

    @Command(name = "redeliver", mixinStandardHelpOptions = true,
            header = "Sends again the current counts of every matching item changed since a time.")
    static final class Redeliver extends One {
        @Option(names = "--since", required = true, paramLabel = "TIME", description = "ISO-8601, e.g. 2026-12-07T10:00:00Z")
        String since;

        @Override
        public Integer call() throws Exception {
            return node.call("POST", path() + "/redeliver", JSON.createObjectNode().put("since", since));
        }
    }

    @Command(name = "deliveries", mixinStandardHelpOptions = true, header = "The latest delivery attempts, newest first.")
    static final class Deliveries extends One {
        @Option(names = "--limit", defaultValue = "20", paramLabel = "N", description = "1–100 [${DEFAULT-VALUE}]")
        int limit;

        @Override
        public Integer call() throws Exception {
            return node.call("GET", path() + "/deliveries?limit=" + limit, null);
        }
    }
}
