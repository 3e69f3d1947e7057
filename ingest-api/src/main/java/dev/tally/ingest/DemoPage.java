package dev.tally.ingest;

import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import java.util.Map;

/**
 * {@code GET /}: the demo page — plain HTML, CSS and JavaScript modules from the classpath folder
 * {@code /public} (no build step, nothing from a CDN). It talks to the API on the same origin only, which
 * the Content-Security-Policy enforces: a page script can reach nothing but this server.
 */
public final class DemoPage {
    /** Sent with every file of the page. */
    static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy",
            "default-src 'self'; connect-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'",
            "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "same-origin");

    private DemoPage() {}

    /**
     * Serves the classpath folder {@code /public} at {@code /} ({@code /} answers its {@code index.html}),
     * with the repository's {@code docs/api.md} at {@code /docs/api.md} (copied in by the build).
     */
    public static void mount(JavalinConfig cfg) {
        cfg.staticFiles.add(files -> {
            files.hostedPath = "/";
            files.directory = "/public";
            files.location = Location.CLASSPATH;
            files.headers = HEADERS;
            // say UTF-8 outright: the page's text and scripts are not ASCII
            files.mimeTypes.add("text/html; charset=utf-8", "html");
            files.mimeTypes.add("text/javascript; charset=utf-8", "js");
            files.mimeTypes.add("text/css; charset=utf-8", "css");
            files.mimeTypes.add("text/markdown; charset=utf-8", "md");
        });
    }
}
