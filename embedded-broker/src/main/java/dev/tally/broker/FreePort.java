package dev.tally.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A loopback TCP port that a server started a moment later can bind: every port Tally picks for itself (the
 * embedded broker's listeners, {@code TALLY_HTTP_PORT=0}, the bench's and the drills' nodes) comes from here.
 *
 * <p>A port is picked at random <em>below</em> the kernel's ephemeral range ({@code ip_local_port_range}), and
 * checked free. Asking the kernel for port 0 instead hands out an ephemeral port, and the kernel hands the same
 * one to the next {@code bind(0)} or outgoing connection once it is released, so another listener can take a
 * port picked for a node a moment before (docs/decisions/0014-ports-below-ephemeral-range.md). Where the
 * range is unknown (not Linux) or leaves no room below it, the kernel's pick is the fallback.
 */
public final class FreePort {
    /** The lowest port picked: above the registered services most hosts run. */
    static final int LOWEST = 10_000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int ATTEMPTS = 200;

    private FreePort() {}

    /** A port free on 127.0.0.1 and on the wildcard address right now, outside the ephemeral range. */
    public static int pick() {
        int firstEphemeral = firstEphemeral();
        if (firstEphemeral - LOWEST >= 1_000) {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, firstEphemeral);
                if (available(port)) {
                    return port;
                }
            }
        }
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free TCP port", e);
        }
    }

    /** Whether a server could bind {@code port} now, on the wildcard address (so on 127.0.0.1 too). */
    static boolean available(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // as the broker and Jetty bind: a closed connection in TIME_WAIT does not block
            s.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the kernel's ephemeral range; {@link #LOWEST} (no room below) when it cannot be read. */
    static int firstEphemeral() {
        try {
            String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return LOWEST;
        }
    }
}
