package dev.tally.launcher.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Many clients of {@code GET /v1/stream}, as browsers watching a page would be, on Jetty's non-blocking client: a few
 * threads, a connection each. Each watcher reads its stream's {@code counts} events as they arrive and notes when
 * it first saw an item's {@code upvotes} reach a target.
 */
public final class StreamWatchers implements AutoCloseable {
    /** One stream: its status (0 until its headers came, -1 if it failed) and what it saw. */
    public static final class Watcher {
        private final StringBuilder partial = new StringBuilder();
        private volatile int status;
        private volatile long upvotes = -1;
        private volatile long sawTargetNanos = -1;
        private volatile int events;
        private volatile String failure;

        public int status() {
            return status;
        }

        public long upvotes() {
            return upvotes;
        }

        /** When it first saw {@code upvotes} at or past the target, by {@link System#nanoTime}; -1 if not yet. */
        public long sawTargetNanos() {
            return sawTargetNanos;
        }

        /** How many {@code counts} events it got. */
        public int events() {
            return events;
        }

        public String failure() {
            return failure;
        }
    }

    private final HttpClient client;
    private final List<Watcher> watchers = new ArrayList<>();
    private final List<Request> requests = new ArrayList<>();
    private volatile long target = Long.MAX_VALUE;

    public StreamWatchers(String threadName) throws Exception {
        client = new HttpClient(new HttpClientTransportOverHTTP(1));
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName(threadName);
        threads.setDaemon(true);
        client.setExecutor(threads);
        client.setMaxConnectionsPerDestination(1 << 20);
        client.setMaxRequestsQueuedPerDestination(1 << 20);
        client.setIdleTimeout(60_000); // past the server's 15 s heartbeat
        client.setConnectTimeout(30_000);
        client.setUserAgentField(null);
        client.start();
    }

    /** From now on a watcher notes the moment it sees {@code upvotes} at or past this. */
    public void target(long upvotes) {
        target = upvotes;
    }

    /**
     * Opens {@code n} streams of {@code url} ({@code .../v1/stream?items=...}), at most {@code concurrentConnects}
     * connecting at once, and waits until each has its first event or failed (at most {@code wait}); returns them.
     */
    public List<Watcher> open(String url, int n, int concurrentConnects, Duration wait) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(n);
        Semaphore connecting = new Semaphore(concurrentConnects);
        List<Watcher> opened = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            connecting.acquire();
            Watcher w = new Watcher();
            opened.add(w);
            Response.Listener listener = new Response.Listener() {
                private boolean counted;

                private void startedOnce() {
                    if (!counted) {
                        counted = true;
                        connecting.release();
                        started.countDown();
                    }
                }

                @Override
                public void onHeaders(Response response) {
                    w.status = response.getStatus();
                    if (w.status != 200) {
                        startedOnce();
                    }
                }

                @Override
                public void onContent(Response response, ByteBuffer content) {
                    read(w, content);
                    if (w.events > 0) {
                        startedOnce();
                    }
                }

                @Override
                public void onComplete(Result result) {
                    if (result.isFailed()) {
                        w.failure = String.valueOf(result.getFailure());
                        if (w.status == 0) {
                            w.status = -1;
                        }
                    }
                    startedOnce();
                }
            };
            Request request = client.newRequest(url).headers(h -> h.put("Accept", "text/event-stream"))
                    .idleTimeout(60, TimeUnit.SECONDS);
            synchronized (this) {
                watchers.add(w);
                requests.add(request);
            }
            request.send(listener);
        }
        started.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        return opened;
    }

    /** Every watcher opened so far. */
    public synchronized List<Watcher> all() {
        return List.copyOf(watchers);
    }

    /** Ends every stream (the client closes its connections) and forgets them. */
    public void closeAll() {
        List<Request> open;
        synchronized (this) {
            open = List.copyOf(requests);
            requests.clear();
            watchers.clear();
        }
        open.forEach(r -> r.abort(new CancellationException("the watcher left")));
    }

    /** Splits the content into lines (a line may span chunks) and reads each {@code data:} line's {@code upvotes}. */
    private void read(Watcher w, ByteBuffer content) {
        w.partial.append(StandardCharsets.UTF_8.decode(content));
        int newline;
        while ((newline = w.partial.indexOf("\n")) >= 0) {
            String line = w.partial.substring(0, newline);
            w.partial.delete(0, newline + 1);
            if (line.startsWith("data:")) {
                int at = line.indexOf("\"upvotes\":");
                if (at >= 0) {
                    int from = at + "\"upvotes\":".length();
                    int to = from;
                    while (to < line.length() && Character.isDigit(line.charAt(to))) {
                        to++;
                    }
                    long up = Long.parseLong(line.substring(from, to));
                    w.upvotes = up;
                    w.events++;
                    if (up >= target && w.sawTargetNanos < 0) {
                        w.sawTargetNanos = System.nanoTime();
                    }
                }
            }
        }
    }

    @Override
    public void close() throws Exception {
        closeAll();
        client.stop();
    }
}
