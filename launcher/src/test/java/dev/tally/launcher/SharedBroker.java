package dev.tally.launcher;

import dev.tally.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One real KRaft broker per test JVM, started on first use and stopped when the JVM exits. Integration
 * tests treat the JVM as one Tally deployment: they share topics and application ids, and keep apart by
 * using their own item ids and voters.
 */
final class SharedBroker {
    private static EmbeddedKafka broker;
    private static Path root;

    private SharedBroker() {}

    static synchronized EmbeddedKafka get() {
        if (broker == null) {
            try {
                root = Files.createTempDirectory("tally-it-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            broker = EmbeddedKafka.start(root.resolve("kafka"), 0);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> broker.close(), "shared-broker-stop"));
        }
        return broker;
    }

    /** Stops the broker; {@link #restart()} brings it back on the same port with the same log. */
    static synchronized void stop() {
        get().close();
    }

    static synchronized void restart() {
        int port = broker.port();
        broker = EmbeddedKafka.start(root.resolve("kafka"), port);
    }

    /** A directory for one test's Tally data (Streams state, dev secret), under the broker's temp root. */
    static synchronized Path dataDir(String name) {
        get();
        return root.resolve(name);
    }
}
