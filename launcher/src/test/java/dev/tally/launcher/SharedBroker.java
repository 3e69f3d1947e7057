package dev.tally.launcher;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.common.TopicAdmin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * One real KRaft broker per test JVM, started on first use and stopped when the JVM exits. Integration
 * tests treat the JVM as one Tally deployment: they share topics and application ids, and keep apart by
 * using their own item ids and voters. The deployment runs two instances at times ({@link ReadSideIT},
 * {@code VoterLimitsIT}), each of which must own tasks, so its topics are created with {@value #PARTITIONS} partitions
 * before any test starts a node, whichever runs first; one machine's default of 2 is {@code KafkaSettingsTest}'s.
 */
final class SharedBroker {
    static final int PARTITIONS = 4;
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
            TopicAdmin.ensureTopics(KafkaSettings.from(Env.of(Map.of("TALLY_BOOTSTRAP", broker.bootstrap(),
                    "TALLY_PARTITIONS", Integer.toString(PARTITIONS)))));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                broker.close();
                deleteTree(root); // the broker's log and every test's data: nothing of a run stays behind
            }, "shared-broker-stop"));
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

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + dir + ": " + e);
        }
    }
}
