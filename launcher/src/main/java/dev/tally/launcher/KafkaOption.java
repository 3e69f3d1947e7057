package dev.tally.launcher;

import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The {@code --bootstrap} option of the CLI commands that talk to an existing Kafka (a picocli mixin).
 * Where the broker is, first found wins: {@code --bootstrap}, {@code TALLY_BOOTSTRAP}, then the address
 * {@code ./tally up} recorded in its data directory ({@code $TALLY_DATA_DIR/bootstrap}, {@code data/} by
 * default), so a command finds the broker of an {@code up} on another port without being told.
 */
final class KafkaOption {
    /** The file in the data directory where {@code up} records where its broker listens. */
    static final String RECORDED = "bootstrap";

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers "
            + "[default: TALLY_BOOTSTRAP, else where ./tally up listens ($TALLY_DATA_DIR/bootstrap), else 127.0.0.1:9092]")
    String bootstrap;

    @Option(names = "--namespace", paramLabel = "NAME", description = "the deployment's namespace [default: TALLY_NAMESPACE, else tally]")
    String namespace;

    Env env() {
        Env env = namespace == null ? Env.system() : Env.system().with("TALLY_NAMESPACE", namespace);
        if (bootstrap != null) {
            return env.with("TALLY_BOOTSTRAP", bootstrap);
        }
        if (env.get("TALLY_BOOTSTRAP").isPresent()) {
            return env;
        }
        return recorded(env.path("TALLY_DATA_DIR", "data")).map(b -> env.with("TALLY_BOOTSTRAP", b)).orElse(env);
    }

    /**
     * The settings, once a broker answers at the address: if none of the bootstrap servers accepts a
     * connection within a second, the command stops at once, saying where it looked, rather than after the
     * Kafka client's timeouts.
     */
    KafkaSettings kafka() {
        KafkaSettings kafka = KafkaSettings.from(env());
        String servers = kafka.bootstrap();
        for (String server : servers.split(",")) {
            int colon = server.lastIndexOf(':');
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(server.substring(0, colon).strip(),
                        Integer.parseInt(server.substring(colon + 1).strip())), 1000);
                return kafka;
            } catch (IOException | RuntimeException e) {
                // try the next one
            }
        }
        throw new Env.ConfigException("no Kafka broker answers at " + servers + " (from " + source() + "); is ./tally up "
                + "running? Give the address with --bootstrap HOST:PORT or TALLY_BOOTSTRAP");
    }

    private String source() {
        if (bootstrap != null) {
            return "--bootstrap";
        }
        Env env = Env.system();
        if (env.get("TALLY_BOOTSTRAP").isPresent()) {
            return "TALLY_BOOTSTRAP";
        }
        Path dataDir = env.path("TALLY_DATA_DIR", "data");
        return recorded(dataDir).isPresent() ? dataDir.resolve(RECORDED) + ", written by ./tally up" : "the default";
    }

    /** The address {@code up} recorded in {@code dataDir}, if it did. */
    static Optional<String> recorded(Path dataDir) {
        Path file = dataDir.resolve(RECORDED);
        try {
            return Files.exists(file) ? Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip()).filter(s -> !s.isEmpty())
                    : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Records where the broker of {@code up} listens, for the commands run beside it. */
    static void record(Path dataDir, String bootstrap) {
        try {
            Files.createDirectories(dataDir);
            Path tmp = dataDir.resolve(RECORDED + ".tmp");
            Files.writeString(tmp, bootstrap + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, dataDir.resolve(RECORDED), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the broker address in " + dataDir, e);
        }
    }
}
