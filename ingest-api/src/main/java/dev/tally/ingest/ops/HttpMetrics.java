package dev.tally.ingest.ops;

import dev.tally.common.TallyMetrics;
import io.javalin.config.JavalinConfig;
import io.javalin.config.JavalinState;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.router.Endpoint;
import io.javalin.router.ParsedEndpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP latency as a Prometheus histogram: the timer {@value #TIMER} ({@code http_server_requests_seconds_*})
 * tagged {@code method}, {@code route}, {@code status}, with percentile-histogram buckets so p50/p99 can be
 * aggregated across instances ({@code histogram_quantile}).
 *
 * <p>{@code route} is the matched route <em>template</em> ({@code /v1/votes/{itemType}/{itemId}}), never
 * the raw path, so the number of series is bounded by the route table; a static file the demo page serves
 * is its path (bounded by the files there are: a path with no file is a 404); a request nothing answers is
 * {@value #NOT_FOUND}, an unusual method is {@code OTHER}. When a before-handler refuses a request (e.g. the
 * origin check) its endpoint never runs, and the route is then looked up in the router, as Javalin would.
 *
 * <p>Timing comes from Javalin's request logger: it runs once per request after the whole lifecycle
 * (before-handlers, endpoint, after-handlers, exception and error mapping, writing the body) with the time
 * Javalin measured from the start of the request, so it is right whatever the order in which handlers are
 * registered and whether or not one of them threw.
 *
 * <p>Not timed: {@code GET /metrics} (the scraper would time itself) and live streams
 * ({@code text/event-stream} answers): a stream lasts as long as the client stays, which says nothing about
 * latency and would swamp the histogram's top bucket; the stream route keeps its own gauge of open streams. A
 * stream refused before it started (400, 406, 503 too-many-streams) is an ordinary short request and is timed.
 */
public final class HttpMetrics {
    public static final String TIMER = "http.server.requests";
    static final String NOT_FOUND = "NOT_FOUND";

    private static final Logger LOG = LoggerFactory.getLogger(HttpMetrics.class);
    private static final Set<String> UNTIMED_ROUTES = Set.of(OpsRoutes.METRICS);
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");

    private final JavalinState app;
    private final MeterRegistry registry;
    /** Each series' timer, found once: building and registering a meter per request costs more than timing it. */
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();

    private HttpMetrics(JavalinState app, MeterRegistry registry) {
        this.app = app;
        this.registry = registry;
    }

    /**
     * Times every request of the app built from {@code cfg}. Call it once, from the config consumer of
     * {@code Javalin.create}.
     */
    public static void install(JavalinConfig cfg, TallyMetrics metrics) {
        HttpMetrics http = new HttpMetrics(cfg.unsafe, metrics.registry());
        cfg.requestLogger.http(http::finished);
    }

    private void finished(Context ctx, Float executionMs) {
        try {
            String contentType = ctx.res().getContentType();
            if (contentType != null && contentType.startsWith("text/event-stream")) {
                return; // a stream that ran: its length is how long the client stayed
            }
            Endpoint endpoint = matched(ctx);
            String route = endpoint != null ? endpoint.path
                    : ctx.statusCode() < 400 ? requestPath(ctx) // a static file: bounded by the files there are
                    : NOT_FOUND;
            if (UNTIMED_ROUTES.contains(route)) {
                return;
            }
            timers.computeIfAbsent(new Series(method(ctx), route, ctx.statusCode()), this::timer)
                    .record((long) (executionMs * 1_000_000L), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException e) {
            // the response was recycled before the record (a client gone, a server stopping): nothing to time
            LOG.debug("no HTTP metrics for a {} whose response is gone: {}", ctx.method(), e.toString());
        } catch (RuntimeException e) {
            // metrics must never break an answer that is already written
            LOG.warn("could not record HTTP metrics for {}", ctx.method(), e);
        }
    }

    /** One timer series: bounded by the route table times the methods and statuses. */
    private record Series(String method, String route, int status) {}

    private Timer timer(Series series) {
        return Timer.builder(TIMER)
                .description("HTTP requests, by route template, method and status")
                .tag("method", series.method())
                .tag("route", series.route())
                .tag("status", Integer.toString(series.status()))
                .publishPercentileHistogram()
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
    }

    /** The endpoint that answered, or the one the router would pick when a before-handler refused first. */
    private Endpoint matched(Context ctx) {
        Endpoint ran = ctx.endpoints().lastHttpEndpoint();
        return ran != null ? ran : routed(ctx);
    }

    private Endpoint routed(Context ctx) {
        ParsedEndpoint parsed = app.internalRouter.findFirstHttpHandlerEntry(ctx.method(), requestPath(ctx));
        return parsed == null ? null : parsed.endpoint;
    }

    /** The path the router matches on: without the context path, as Javalin strips it. */
    private static String requestPath(Context ctx) {
        String path = ctx.path();
        String contextPath = ctx.contextPath();
        return contextPath.length() > 1 && path.startsWith(contextPath) ? path.substring(contextPath.length()) : path;
    }

    private static String method(Context ctx) {
        HandlerType type = ctx.method();
        return METHODS.contains(type.name()) ? type.name() : "OTHER";
    }
}
