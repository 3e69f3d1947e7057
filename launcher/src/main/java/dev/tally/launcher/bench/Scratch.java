package dev.tally.launcher.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The bench's throwaway local resources: a free loopback port, and removing a scratch directory. */
public final class Scratch {
    private Scratch() {}

    /** A TCP port free on the loopback interface right now. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Deletes the directory and all in it, as far as it can; says so on stderr when it cannot. */
    public static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("bench: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
