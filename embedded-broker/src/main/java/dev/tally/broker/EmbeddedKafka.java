package dev.tally.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft Kafka broker (broker and controller in one), started from Kafka's own jars
 * inside this JVM. Its log lives under {@code logDir} and survives a restart: the storage is formatted
 * once, with a cluster id and the controller's port kept beside it. A restart after SIGKILL can leave
 * transactions hanging: {@link #completeHangingTransactions()} completes them before clients start.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    private final KafkaRaftServer server;
    private final int port;

    private EmbeddedKafka(KafkaRaftServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Formats {@code logDir} if needed and starts the broker on 127.0.0.1:{@code port}
     * (0 picks a free port).
     */
    public static EmbeddedKafka start(Path logDir, int port) {
        try {
            long t0 = System.nanoTime();
            int brokerPort = port == 0 ? freePort() : port;
            Files.createDirectories(logDir);
            Properties props = brokerProps(logDir, brokerPort, controllerPort(logDir));
            format(logDir, props);
            KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            server.startup();
            LOG.info("embedded Kafka broker listening on 127.0.0.1:{} (log {}), started in {} s", brokerPort, logDir,
                    String.format("%.1f", (System.nanoTime() - t0) / 1e9));
            return new EmbeddedKafka(server, brokerPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded broker in " + logDir, e);
        }
    }

    /**
     * Completes the transactions a restart after SIGKILL can leave hanging ({@link HangingTransactions}).
     * Call it after {@link #start} and before any client of the broker starts; returns how many
     * partitions it closed.
     */
    public int completeHangingTransactions() {
        long t0 = System.nanoTime();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tally-embedded-broker-repair");
        try (Admin admin = Admin.create(p)) {
            int closed = HangingTransactions.repair(admin, "127.0.0.1", port, Duration.ofSeconds(20));
            LOG.info("checked for hanging transactions in {} s: {} partitions closed",
                    String.format("%.1f", (System.nanoTime() - t0) / 1e9), closed);
            return closed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** The controller keeps its port across restarts (the quorum's address), picked once and kept beside the log. */
    private static int controllerPort(Path logDir) throws IOException {
        Path file = logDir.resolve("server.properties");
        if (Files.exists(file)) {
            Properties old = new Properties();
            try (var in = Files.newInputStream(file)) {
                old.load(in);
            }
            String voters = old.getProperty("controller.quorum.voters", "");
            int colon = voters.lastIndexOf(':');
            if (colon > 0) {
                try {
                    int kept = Integer.parseInt(voters.substring(colon + 1));
                    if (available(kept)) {
                        return kept;
                    }
                } catch (NumberFormatException ignored) {
                    // an unreadable file: pick a new port
                }
            }
        }
        return freePort();
    }

    private static boolean available(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    private static Properties brokerProps(Path logDir, int brokerPort, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toAbsolutePath().toString());
        p.put("num.partitions", "12");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "12");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "12");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("min.insync.replicas", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        // a restart after SIGKILL cannot register until the killed incarnation's session expires (9 s by
        // default): heartbeats inside one JVM need no slack for a network
        p.put("broker.heartbeat.interval.ms", "500");
        p.put("broker.session.timeout.ms", "2500");
        p.put("log.cleaner.dedupe.buffer.size", "8388608");
        p.put("auto.create.topics.enable", "false");
        p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        return p;
    }

    /** Formats the storage once; the cluster id is kept in {@code cluster.id} so a restart reuses it. */
    private static void format(Path logDir, Properties props) throws IOException {
        Path idFile = logDir.resolve("cluster.id");
        String clusterId = Files.exists(idFile) ? Files.readString(idFile).strip() : Uuid.randomUuid().toString();
        Files.writeString(idFile, clusterId);
        Path propsFile = logDir.resolve("server.properties");
        try (var out = Files.newOutputStream(propsFile)) {
            props.store(out, "embedded Tally broker");
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = StorageTool.execute(new String[] {"format", "-t", clusterId, "-c", propsFile.toString(),
                "--ignore-formatted"}, new PrintStream(buf, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException("formatting Kafka storage in " + logDir + " failed: "
                    + buf.toString(StandardCharsets.UTF_8));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }
}
