package dev.tally.ingest.ops;

import dev.tally.common.TallyMetrics;
import dev.tally.ingest.IngestApi;
import io.javalin.Javalin;
import io.javalin.router.Endpoint;
import io.javalin.router.ParsedEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The public routes of the ingest API's server, enumerated so the list cannot drift from the code:
 * <ul>
 *   <li>{@code IngestApi.create(...)} is built for real (with {@link StandIns}) and its routes are read from
 *       Javalin's router ({@code app.unsafe.internalRouter});</li>
 *   <li>{@link OpsRoutes} likewise, on an app of its own (it may or may not be mounted inside
 *       {@code IngestApi} yet);</li>
 *   <li>{@code RankingRoutes} lives in count-projector, which ingest-api does not depend on: its
 *       registrations are read from its source file ({@code routes.get(PATH, …)} with {@code PATH}
 *       resolved from its constants).</li>
 *   <li>{@code WebhookHandler}'s routes, which the node mounts beside the ingest API's, likewise from its source.</li>
 * </ul>
 * Before/after handlers are not routes; {@code /internal/...} query routes are not public.
 */
final class RouteTable {
    /** One operation: an HTTP method and a path template with its parameter names blanked ({@code /v1/votes/{}/{}}). */
    record Route(String method, String path) implements Comparable<Route> {
        static Route of(String method, String template) {
            return new Route(method.toUpperCase(), template.replaceAll("\\{[^}]*}", "{}"));
        }

        @Override
        public int compareTo(Route o) {
            return (path + " " + method).compareTo(o.path + " " + o.method);
        }

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private static final Pattern ROUTE_CALL = Pattern.compile("routes\\.(get|post|put|patch|delete|sse)\\(\\s*(\"[^\"]*\"|\\w+)");
    private static final Pattern CONSTANT = Pattern.compile("static final String (\\w+) = \"([^\"]*)\"");

    private RouteTable() {}

    /** Every public route registered by {@code IngestApi.create}, as Javalin's router holds them. */
    static Set<Route> ingestApi() {
        Javalin app = IngestApi.create(StandIns.of(IngestApi.Deps.class), cfg -> {});
        return routesOf(app);
    }

    /** The routes {@link OpsRoutes#mount} adds. */
    static Set<Route> ops() {
        try (TallyMetrics metrics = new TallyMetrics()) {
            return routesOf(Javalin.create(cfg -> OpsRoutes.mount(cfg.routes, metrics)));
        }
    }

    /** The routes {@code RankingRoutes} and {@code RankingsRoute} register, from their source. */
    static Set<Route> rankings() {
        Set<Route> routes = new TreeSet<>(fromSource(repositoryRoot().resolve(
                "count-projector/src/main/java/dev/tally/projector/ranking/RankingRoutes.java")));
        routes.addAll(fromSource(repositoryRoot().resolve("count-projector/src/main/java/dev/tally/projector/rankings/RankingsRoute.java")));
        return routes;
    }

    /** The routes {@code WebhookHandler} registers (the node mounts them beside the ingest API's own), from its source. */
    static Set<Route> webhooks() {
        return fromSource(repositoryRoot().resolve("ingest-api/src/main/java/dev/tally/ingest/WebhookHandler.java"));
    }

    /** The routes a source file registers with {@code routes.<method>("...")} or {@code routes.<method>(CONSTANT)}. */
    static Set<Route> fromSource(Path file) {
        String source;
        try {
            source = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
        Map<String, String> constants = new HashMap<>();
        Matcher c = CONSTANT.matcher(source);
        while (c.find()) {
            constants.put(c.group(1), c.group(2));
        }
        Set<Route> routes = new TreeSet<>();
        Matcher m = ROUTE_CALL.matcher(source);
        while (m.find()) {
            String arg = m.group(2);
            String path = arg.startsWith("\"") ? arg.substring(1, arg.length() - 1) : constants.get(arg);
            if (path == null) {
                throw new IllegalStateException(file + " registers a route at " + arg + ", which is not a constant of that file");
            }
            routes.add(Route.of(m.group(1).equals("sse") ? "GET" : m.group(1), path));
        }
        return routes;
    }

    private static Set<Route> routesOf(Javalin app) {
        Set<Route> routes = new TreeSet<>();
        for (ParsedEndpoint parsed : app.unsafe.internalRouter.allHttpHandlers()) {
            Endpoint e = parsed.endpoint;
            if (e.method.isHttpMethod() && !e.path.startsWith("/internal/")) {
                routes.add(Route.of(e.method.name(), e.path));
            }
        }
        return routes;
    }

    /** The repository root: the working directory of a module's tests is the module. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("count-projector")) && Files.isDirectory(p.resolve("ingest-api"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root above " + dir);
    }
}
