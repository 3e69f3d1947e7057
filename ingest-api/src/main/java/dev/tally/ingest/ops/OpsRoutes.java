package dev.tally.ingest.ops;

import dev.tally.common.TallyMetrics;
import io.javalin.config.RoutesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The operator's routes: {@code GET /metrics} (Prometheus text, everything in the process's
 * {@link TallyMetrics}) and {@code GET /openapi.json} (the hand-written OpenAPI 3.1 description of the public
 * API, {@value #OPENAPI_RESOURCE} on the classpath, checked against the route table by
 * {@code OpenApiDocumentTest}).
 */
public final class OpsRoutes {
    public static final String METRICS = "/metrics";
    public static final String OPENAPI = "/openapi.json";
    static final String OPENAPI_RESOURCE = "/openapi.json";

    private OpsRoutes() {}

    /**
     * Mounts both routes on the public API server; reads the OpenAPI document now, so a build without it fails
     * at start, not on a request.
     */
    public static void mount(RoutesConfig routes, TallyMetrics metrics) {
        byte[] openapi = openApiDocument();
        mountMetrics(routes, metrics);
        routes.get(OPENAPI, ctx -> ctx.contentType("application/json").header("Cache-Control", "public, max-age=300")
                .result(openapi));
    }

    /**
     * Only {@code GET /metrics}: for the query server of a Streams service run alone, which serves no public
     * API for {@code /openapi.json} to describe.
     */
    public static void mountMetrics(RoutesConfig routes, TallyMetrics metrics) {
        routes.get(METRICS, ctx -> ctx.contentType(TallyMetrics.CONTENT_TYPE).result(metrics.scrape()));
    }

    /** The OpenAPI document as served. */
    static byte[] openApiDocument() {
        try (InputStream in = OpsRoutes.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("classpath resource " + OPENAPI_RESOURCE + " is missing from ingest-api");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + OPENAPI_RESOURCE, e);
        }
    }
}
