package dev.tally.launcher;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.StreamsService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tally up}: a real single-node KRaft broker embedded in this JVM, with its log under
 * {@code $TALLY_DATA_DIR/kafka} (kept across restarts), and all four services beside it. With
 * {@code --brokers 3}, a replicated three-node KRaft cluster in the same JVM instead (log under
 * {@code $TALLY_DATA_DIR/kafka-3-brokers}, replication factor 3, {@code min.insync.replicas} 2, one standby
 * of every store), whose brokers can be stopped and started from the terminal to watch a failover. With
 * {@code --bootstrap HOST:PORT}, no embedded broker: the four services run against that cluster, and several such
 * nodes side by side share the work (Streams spreads the tasks; reads are routed to the node that owns a key).
 */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Runs an embedded Kafka broker (or --brokers N) and all four services in one process until Ctrl-C;"
                + " with --bootstrap, the four services against an existing cluster.")
final class UpCommand implements Callable<Integer> {

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "run against this Kafka cluster instead of"
            + " an embedded broker (its client settings from TALLY_KAFKA_CONFIG and TALLY_KAFKA_*)")
    String bootstrap;

    @Option(names = "--brokers", defaultValue = "1", paramLabel = "N", description = "embedded Kafka brokers: 1, "
            + "or a replicated cluster of 2 to 9 (type 'stop N' / 'start N' to stop or start broker N) [${DEFAULT-VALUE}]")
    int brokers;

    @Override
    public Integer call() throws InterruptedException {
        long t0 = System.nanoTime();
        if (brokers < 1 || brokers > 9) {
            throw new Env.ConfigException("--brokers must be between 1 and 9, was " + brokers);
        }
        Env env = Env.system();
        if (bootstrap != null) {
            if (brokers != 1) {
                throw new Env.ConfigException("--bootstrap runs against an existing cluster; --brokers is for the embedded one");
            }
            return againstCluster(env.with("TALLY_BOOTSTRAP", bootstrap), t0);
        }
        if (brokers > 1) { // replicated like a production cluster, unless the caller chose otherwise
            env = env.withDefault("TALLY_REPLICATION_FACTOR", Integer.toString(Math.min(3, brokers)));
        }
        Path dataDir = env.path("TALLY_DATA_DIR", "data");
        int kafkaPort = env.integer("TALLY_KAFKA_PORT", 9092, 1, 65535);
        // every setting of every service is checked before the broker or anything else starts
        TallyNode.validate(env.with("TALLY_BOOTSTRAP", "127.0.0.1:" + kafkaPort), EnumSet.allOf(TallyNode.Service.class));
        EmbeddedKafka kafka;
        if (brokers == 1) {
            kafka = EmbeddedKafka.start(dataDir.resolve("kafka"), kafkaPort);
            kafka.completeHangingTransactions(); // before any client: a restart after SIGKILL can leave some
        } else {
            kafka = EmbeddedKafka.startCluster(dataDir.resolve("kafka-" + brokers + "-brokers"), brokers);
        }
        KafkaOption.record(dataDir, kafka.bootstrap()); // where every other ./tally command looks for it
        TallyNode node;
        try {
            node = TallyNode.start(env.with("TALLY_BOOTSTRAP", kafka.bootstrap()), EnumSet.allOf(TallyNode.Service.class));
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("stopping Tally…");
            node.close();
            kafka.close();
            stopped.countDown();
        }, "tally-shutdown"));
        awaitReady(node, kafka);
        if (brokers == 1) {
            kafka.reportStillHanging(); // what the start could not judge, if the restarted producers did not end it
        }
        printUp(node, t0, dataDir, kafka.bootstrap());
        if (brokers > 1) {
            System.out.printf("Brokers 1 to %d; type 'stop N' or 'start N' to stop or start broker N.%n", brokers);
            Thread console = new Thread(() -> brokerConsole(kafka), "tally-broker-console");
            console.setDaemon(true);
            console.start();
        }
        stopped.await();
        return 0;
    }

    /** Reads 'stop N' / 'start N' lines from the terminal and stops or starts that broker. */
    private static void brokerConsole(EmbeddedKafka kafka) {
        var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] words = line.strip().split("\\s+");
                try {
                    if (words.length == 2 && words[0].equals("stop")) {
                        kafka.stopBroker(Integer.parseInt(words[1]));
                        System.out.println("broker " + words[1] + " stopped");
                    } else if (words.length == 2 && words[0].equals("start")) {
                        kafka.startBroker(Integer.parseInt(words[1]));
                        System.out.println("broker " + words[1] + " started");
                    } else if (!line.isBlank()) {
                        System.out.println("type 'stop N' or 'start N' (N from 1 to " + kafka.brokers() + ")");
                    }
                } catch (IllegalArgumentException e) {
                    System.out.println(e.getMessage());
                }
            }
        } catch (java.io.IOException e) {
            // no terminal: nothing to read
        }
    }

    /** The four services against an existing cluster, until Ctrl-C. */
    private static int againstCluster(Env env, long t0) throws InterruptedException {
        Path dataDir = env.path("TALLY_DATA_DIR", "data");
        TallyNode.validate(env, EnumSet.allOf(TallyNode.Service.class));
        TallyNode node = TallyNode.start(env, EnumSet.allOf(TallyNode.Service.class));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("stopping Tally…");
            node.close();
            stopped.countDown();
        }, "tally-shutdown"));
        awaitReady(node, null);
        KafkaOption.record(dataDir, node.runtime().kafka().bootstrap());
        printUp(node, t0, dataDir, node.runtime().kafka().bootstrap());
        stopped.await();
        return 0;
    }

    private static void printUp(TallyNode node, long t0, Path dataDir, String kafka) {
        String base = "http://127.0.0.1:" + node.httpPort();
        StringBuilder apps = new StringBuilder();
        for (StreamsService s : node.streamsServices()) {
            apps.append(String.format("  %-15s %s%n", s.name(), s.startSummary() == null ? "not running yet" : s.startSummary()));
        }
        System.out.printf("""
                Tally is up in %.1f s (profile %s, namespace %s, data in %s)
                %s\
                  API        %s/v1/votes
                  health     %s/readyz
                  Kafka      %s
                  admin token %s
                Ctrl-C stops it.
                """, (System.nanoTime() - t0) / 1e9, node.runtime().profile().name(), node.runtime().kafka().namespace(),
                dataDir, apps, base, base, kafka, node.adminTokenToShow());
    }

    /** Waits for the services; one Kafka refused stops the node (and an embedded broker) with the reason. */
    private static void awaitReady(TallyNode node, EmbeddedKafka kafka) throws InterruptedException {
        try {
            node.awaitReady(Duration.ofMinutes(2));
        } catch (Env.ConfigException e) {
            node.close();
            if (kafka != null) {
                kafka.close();
            }
            throw e;
        }
    }
}
