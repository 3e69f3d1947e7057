package dev.tally.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
 * Real KRaft Kafka, started from Kafka's own jars inside this JVM: one node ({@link #start}), or a cluster
 * of several ({@link #startCluster}) whose nodes are each broker and controller — the production shape,
 * replicated, without Docker. Logs live under {@code logDir} and survive a restart: the storage is
 * formatted once, with the cluster id and every node's ports kept beside it (the controllers' addresses
 * are the quorum's identity). A single node restarted after SIGKILL registers at once, its killed incarnation
 * unregistered as its controller becomes active ({@link KilledIncarnation}), and can leave transactions hanging:
 * {@link #completeHangingTransactions()} completes them before clients start.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
    /**
     * {@code broker.session.timeout.ms}: how long a broker that stopped heartbeating keeps its registration, and
     * how long a restarted controller keeps the registrations it found (the bound {@link KilledIncarnation} works in).
     */
    static final Duration BROKER_SESSION = Duration.ofMillis(2500);

    /** One KRaft node: its id, its log directory and ports, and its server while it runs. */
    private static final class Node {
        final int id;
        final Path dir;
        final int brokerPort;
        final int controllerPort;
        volatile KafkaRaftServer server;
        /** Whether its last start unregistered the incarnation an unclean stop left ({@link KilledIncarnation}). */
        volatile boolean forgotKilled;

        Node(int id, Path dir, int brokerPort, int controllerPort) {
            this.id = id;
            this.dir = dir;
            this.brokerPort = brokerPort;
            this.controllerPort = controllerPort;
        }
    }

    private final List<Node> nodes;
    private final String clusterId;
    private final Security security;
    private volatile List<HangingTransactions.Open> unjudged = List.of();

    /**
     * How clients reach the nodes: the client listener's security protocol, the broker settings it needs (TLS, SASL,
     * an authorizer), and what the storage format adds (SCRAM credentials). The controller listener stays plaintext.
     */
    public record Security(String protocol, java.util.Map<String, String> brokerSettings, List<String> formatArgs) {
        static final Security NONE = new Security("PLAINTEXT", java.util.Map.of(), List.of());
    }

    private EmbeddedKafka(List<Node> nodes, String clusterId, Security security) {
        this.nodes = nodes;
        this.clusterId = clusterId;
        this.security = security;
    }

    /**
     * Formats {@code logDir} if needed and starts one node on 127.0.0.1:{@code port} (0 picks a free port).
     */
    public static EmbeddedKafka start(Path logDir, int port) {
        return start(logDir, port, Security.NONE);
    }

    /**
     * One node as {@link #start(Path, int)}, its client listener secured as {@code security} says: a cluster such as
     * managed Kafka offers, for tests of clients against TLS, SASL and ACLs.
     */
    public static EmbeddedKafka start(Path logDir, int port, Security security) {
        try {
            Files.createDirectories(logDir);
            Node node = new Node(1, logDir, port == 0 ? FreePort.pick() : port, keptControllerPort(logDir));
            EmbeddedKafka kafka = new EmbeddedKafka(List.of(node), clusterId(logDir), security);
            kafka.startNode(node);
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded broker in " + logDir, e);
        }
    }

    /**
     * Formats and starts {@code brokers} nodes, {@code logDir/node-<id>} each, all at once (a controller
     * quorum needs a majority before any broker can finish starting). Topics default to a replication
     * factor of min(3, brokers) and {@code min.insync.replicas} one less (at least 1). Ports are picked on
     * the first start and kept in {@code logDir/cluster.ports}.
     */
    public static EmbeddedKafka startCluster(Path logDir, int brokers) {
        if (brokers < 1 || brokers > 9) {
            throw new IllegalArgumentException("an embedded cluster has 1 to 9 brokers, not " + brokers);
        }
        try {
            Files.createDirectories(logDir);
            EmbeddedKafka kafka = new EmbeddedKafka(clusterNodes(logDir, brokers), clusterId(logDir), Security.NONE);
            try {
                kafka.onEveryNode("start", kafka::startNode);
            } catch (RuntimeException e) {
                kafka.close();
                throw new IllegalStateException("the embedded cluster in " + logDir + " did not start", e);
            }
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded cluster in " + logDir, e);
        }
    }

    /** Every broker's address, comma-separated: what clients bootstrap from. */
    public String bootstrap() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.brokerPort).collect(Collectors.joining(","));
    }

    /** The first node's broker port (the only one of a single node). */
    public int port() {
        return nodes.get(0).brokerPort;
    }

    public int brokers() {
        return nodes.size();
    }

    /** Stops node {@code id} (1-based) cleanly: its leaderships move to the others first. */
    public void stopBroker(int id) {
        Node node = node(id);
        KafkaRaftServer server = node.server;
        if (server != null) {
            node.server = null;
            server.shutdown();
            server.awaitShutdown();
            LOG.info("embedded Kafka node {} stopped", id);
        }
    }

    /** Starts node {@code id} again on its log and ports; it rejoins and catches up. */
    public void startBroker(int id) {
        Node node = node(id);
        if (node.server == null) {
            startNode(node);
        }
    }

    /** Whether node {@code id}'s last start unregistered the incarnation an unclean stop left ({@link KilledIncarnation}). */
    boolean forgotKilledIncarnation(int id) {
        return node(id).forgotKilled;
    }

    /** Whether node {@code id} runs. */
    public boolean running(int id) {
        return node(id).server != null;
    }

    /** The id of the node whose controller leads the quorum (the active controller). */
    public int activeController() throws InterruptedException {
        try (Admin admin = admin("tally-embedded-broker-quorum")) {
            return admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot describe the metadata quorum", e);
        }
    }

    /**
     * Completes the transactions a restart after SIGKILL can leave hanging on a single node
     * ({@link HangingTransactions}). Call it after {@link #start} and before any client of the broker
     * starts; returns how many partitions it closed.
     */
    public int completeHangingTransactions() {
        if (nodes.size() != 1) {
            throw new IllegalStateException("the hanging-transaction repair is for a single node");
        }
        long t0 = System.nanoTime();
        try (Admin admin = admin("tally-embedded-broker-repair")) {
            HangingTransactions.Repaired repaired = HangingTransactions.repair(admin, "127.0.0.1", port(), Duration.ofSeconds(20));
            unjudged = repaired.unknown();
            LOG.info("checked for hanging transactions in {} s: {} partitions closed",
                    String.format("%.1f", (System.nanoTime() - t0) / 1e9), repaired.closed());
            return repaired.closed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /**
     * Once the clients run: reports, as errors, the open transactions {@link #completeHangingTransactions}
     * could not judge that are still open (their producers, started again, did not abort them), and returns
     * how many. Those hold back the last stable offset of their partitions until an operator acts.
     */
    public int reportStillHanging() {
        if (unjudged.isEmpty()) {
            return 0;
        }
        try (Admin admin = admin("tally-embedded-broker-recheck")) {
            var still = HangingTransactions.stillOpen(admin, unjudged);
            for (var o : still) {
                LOG.error("a transaction hangs on {} (producer {}, epoch {}) and its outcome is not known here;"
                        + " see kafka-transactions.sh find-hanging", o.partition(), o.producer().producerId(),
                        o.producer().producerEpoch());
            }
            if (still.isEmpty()) {
                LOG.info("the {} open transactions found at start have ended", unjudged.size());
            }
            unjudged = List.of();
            return still.size();
        } catch (java.util.concurrent.ExecutionException e) {
            LOG.warn("could not check the open transactions found at start again: {}", e.getCause().toString());
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    @Override
    public void close() {
        // all at once: stopped one by one, the last nodes of a cluster would wait for a quorum that is gone
        onEveryNode("stop", n -> stopBroker(n.id));
    }

    /** Runs {@code action} on every node at once, a thread each (a pool of the machine's size would serialise them). */
    private void onEveryNode(String what, java.util.function.Consumer<Node> action) {
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (Node n : nodes) {
            Thread t = new Thread(() -> {
                try {
                    action.accept(n);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "embedded-kafka-" + what + "-" + n.id);
            threads.add(t);
            t.start();
        }
        try {
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(3));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    private Node node(int id) {
        if (id < 1 || id > nodes.size()) {
            throw new IllegalArgumentException("no node " + id + "; the nodes are 1 to " + nodes.size());
        }
        return nodes.get(id - 1);
    }

    private Admin admin(String clientId) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        return Admin.create(p);
    }

    private void startNode(Node node) {
        long t0 = System.nanoTime();
        try {
            Properties props = props(node);
            boolean killed = nodes.size() == 1 && KilledIncarnation.leftIn(node.dir);
            format(node.dir, clusterId, props, security.formatArgs());
            CompletableFuture<Boolean> forgotten = killed ? KilledIncarnation.forget(node.id, node.controllerPort)
                    : CompletableFuture.completedFuture(false);
            KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            server.startup();
            node.server = server;
            node.forgotKilled = forgotten.getNow(false);
            LOG.info("embedded Kafka node {} listening on 127.0.0.1:{} (log {}), started in {} s{}", node.id,
                    node.brokerPort, node.dir, String.format("%.1f", (System.nanoTime() - t0) / 1e9),
                    !killed ? "" : node.forgotKilled ? " after an unclean stop, its killed incarnation unregistered"
                    : " after an unclean stop, having waited out its killed incarnation's session");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded Kafka node " + node.id + " in " + node.dir, e);
        }
    }

    private Properties props(Node node) {
        int replication = Math.min(3, nodes.size());
        String minIsr = Integer.toString(Math.max(1, replication - 1));
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(node.id));
        p.put("controller.quorum.voters", nodes.stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort)
                .collect(Collectors.joining(",")));
        String client = security.protocol();
        p.put("listeners", client + "://127.0.0.1:" + node.brokerPort + ",CONTROLLER://127.0.0.1:" + node.controllerPort);
        p.put("advertised.listeners", client + "://127.0.0.1:" + node.brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", client + ":" + client + ",CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", client);
        p.put("log.dirs", node.dir.toAbsolutePath().toString());
        p.put("num.partitions", "12");
        p.put("default.replication.factor", Integer.toString(replication));
        p.put("offsets.topic.replication.factor", Integer.toString(replication));
        p.put("offsets.topic.num.partitions", "12");
        p.put("transaction.state.log.replication.factor", Integer.toString(replication));
        p.put("transaction.state.log.min.isr", minIsr);
        p.put("transaction.state.log.num.partitions", "12");
        p.put("share.coordinator.state.topic.replication.factor", Integer.toString(replication));
        p.put("share.coordinator.state.topic.min.isr", minIsr);
        p.put("min.insync.replicas", minIsr);
        p.put("group.initial.rebalance.delay.ms", "0");
        // a restart after SIGKILL cannot register until the killed incarnation's session expires (9 s by
        // default): heartbeats inside one JVM need no slack for a network. The controller answers a heartbeat
        // it has not started within half the interval with REQUEST_TIMED_OUT (logged as an ERROR): 1,000 ms
        // allows a busy machine's stall of 500 ms for a slightly longer restart (docs/decisions/0011-crash-recovery.md)
        p.put("broker.heartbeat.interval.ms", "1000");
        p.put("broker.session.timeout.ms", Long.toString(BROKER_SESSION.toMillis()));
        p.put("log.cleaner.dedupe.buffer.size", "8388608");
        p.put("auto.create.topics.enable", "false");
        p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        if (nodes.size() > 1) { // several brokers share this JVM's cores: fewer threads each
            p.put("num.network.threads", "2");
            p.put("num.io.threads", "2");
            p.put("background.threads", "2");
        }
        p.putAll(security.brokerSettings());
        return p;
    }

    /** The cluster id, kept in {@code logDir/cluster.id} so every restart and every node uses the same. */
    private static String clusterId(Path logDir) throws IOException {
        Path idFile = logDir.resolve("cluster.id");
        String clusterId = Files.exists(idFile) ? Files.readString(idFile).strip() : Uuid.randomUuid().toString();
        Files.writeString(idFile, clusterId);
        return clusterId;
    }

    /** Formats a node's storage once (the id and quorum must not change after). */
    private static void format(Path dir, String clusterId, Properties props, List<String> formatArgs) throws IOException {
        Files.createDirectories(dir);
        Path propsFile = dir.resolve("server.properties");
        try (var out = Files.newOutputStream(propsFile)) {
            props.store(out, "embedded Tally broker");
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", propsFile.toString(), "--ignore-formatted"));
        args.addAll(formatArgs);
        int rc = StorageTool.execute(args.toArray(String[]::new), new PrintStream(buf, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException("formatting Kafka storage in " + dir + " failed: "
                    + buf.toString(StandardCharsets.UTF_8));
        }
    }

    /** A single node's controller keeps its port across restarts: read back from the properties it ran with. */
    private static int keptControllerPort(Path logDir) throws IOException {
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
                    if (FreePort.available(kept)) {
                        return kept;
                    }
                } catch (NumberFormatException ignored) {
                    // an unreadable file: pick a new port
                }
            }
        }
        return FreePort.pick();
    }

    /** A cluster's nodes with their ports: as kept in {@code cluster.ports} ("id brokerPort controllerPort" lines), or new. */
    private static List<Node> clusterNodes(Path logDir, int brokers) throws IOException {
        Path file = logDir.resolve("cluster.ports");
        List<Node> nodes = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.strip().split(" ");
                if (f.length == 3) {
                    int id = Integer.parseInt(f[0]);
                    nodes.add(new Node(id, logDir.resolve("node-" + id), Integer.parseInt(f[1]), Integer.parseInt(f[2])));
                }
            }
            if (nodes.size() != brokers) {
                throw new IllegalStateException(logDir + " holds a cluster of " + nodes.size() + " brokers, not "
                        + brokers + "; use another data directory");
            }
            return nodes;
        }
        StringBuilder kept = new StringBuilder();
        java.util.Set<Integer> used = new java.util.HashSet<>();
        for (int id = 1; id <= brokers; id++) {
            Node n = new Node(id, logDir.resolve("node-" + id), freePort(used), freePort(used));
            nodes.add(n);
            kept.append(id).append(' ').append(n.brokerPort).append(' ').append(n.controllerPort).append('\n');
        }
        Files.writeString(file, kept);
        return nodes;
    }

    private static int freePort(java.util.Set<Integer> used) {
        int port;
        do {
            port = FreePort.pick();
        } while (!used.add(port));
        return port;
    }
}
