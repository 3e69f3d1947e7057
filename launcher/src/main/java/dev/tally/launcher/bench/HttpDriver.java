package dev.tally.launcher.bench;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.RoundRobinConnectionPool;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A non-blocking HTTP/1.1 client (Jetty's) over a fixed set of keep-alive connections, all opened up front
 * and used in turn, so the server really holds that many. A request is handed over at once and answered on
 * the client's few threads; one that finds every connection busy queues in the client, and its latency,
 * measured from the moment it was <em>due</em>, includes that wait (no coordinated omission).
 */
public final class HttpDriver implements AutoCloseable {
    /** One answer: the status (0 when the request failed, {@code body} then says why) and the latency from when it was due. */
    public record Answer(int status, String body, long latencyNanos) {}

    private final HttpClient client;
    private final String baseUrl;
    private final int connections;

    public HttpDriver(String baseUrl, int connections, String threadName) throws Exception {
        this.baseUrl = baseUrl;
        this.connections = connections;
        HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP(1);
        transport.setConnectionPoolFactory(destination -> new RoundRobinConnectionPool(destination, connections));
        this.client = new HttpClient(transport);
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName(threadName);
        threads.setDaemon(true);
        client.setExecutor(threads);
        client.setMaxConnectionsPerDestination(connections);
        client.setMaxRequestsQueuedPerDestination(1 << 20);
        // below the server's idle timeout (Jetty's 30 s): the client closes an idle connection itself, rather
        // than sending a vote on one the server is closing at that moment (a POST is not retried)
        client.setIdleTimeout(20_000);
        client.setFollowRedirects(false);
        client.setUserAgentField(null);
        client.start();
        open();
    }

    /** Opens every connection that is not open (again, after a pause longer than the idle timeout). */
    public void open() throws Exception {
        var destination = client.resolveDestination(client.newRequest(baseUrl));
        if (destination.getConnectionPool() instanceof RoundRobinConnectionPool pool) {
            pool.preCreateConnections(connections).get(60, TimeUnit.SECONDS);
        }
    }

    public int connections() {
        return connections;
    }

    public Request post(String path, String json) {
        return client.POST(baseUrl + path).body(new StringRequestContent("application/json", json))
                .timeout(60, TimeUnit.SECONDS);
    }

    public Request get(String path) {
        return client.newRequest(baseUrl + path).timeout(60, TimeUnit.SECONDS);
    }

    /** Sends without waiting; {@code done} runs on a client thread with the answer, timed from {@code dueNanos}. */
    public void send(Request request, long dueNanos, Consumer<Answer> done) {
        request.send(new BufferingResponseListener(64 * 1024) {
            @Override
            public void onComplete(Result result) {
                long latency = System.nanoTime() - dueNanos;
                if (result.isFailed()) {
                    done.accept(new Answer(0, String.valueOf(result.getFailure()), latency));
                } else {
                    done.accept(new Answer(result.getResponse().getStatus(), getContentAsString(), latency));
                }
            }
        });
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (Exception e) {
            // closing a load generator: nothing left to measure
        }
    }
}
