package dev.tally.launcher;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.StreamsService;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * {@code ./tally up}: a real single-node KRaft broker embedded in this JVM, with its log under
 * {@code $TALLY_DATA_DIR/kafka} (kept across restarts), and all four services beside it.
 */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Runs an embedded Kafka broker and all four services in one process until Ctrl-C.")
final class UpCommand implements Callable<Integer> {

    @Override
    public Integer call() throws InterruptedException {
        long t0 = System.nanoTime();
        Env env = Env.system();
        Path dataDir = env.path("TALLY_DATA_DIR", "data");
        int kafkaPort = env.integer("TALLY_KAFKA_PORT", 9092, 1, 65535);
        // every setting of every service is checked before the broker or anything else starts
        TallyNode.validate(env.with("TALLY_BOOTSTRAP", "127.0.0.1:" + kafkaPort), EnumSet.allOf(TallyNode.Service.class));
        EmbeddedKafka kafka = EmbeddedKafka.start(dataDir.resolve("kafka"), kafkaPort);
        kafka.completeHangingTransactions(); // before any client: a restart after SIGKILL can leave some
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
        awaitReady(node);
        String base = "http://127.0.0.1:" + node.httpPort();
        StringBuilder apps = new StringBuilder();
        for (StreamsService s : node.streamsServices()) {
            apps.append(String.format("  %-15s %s%n", s.name(), s.startSummary() == null ? "not running yet" : s.startSummary()));
        }
        System.out.printf("""
                Tally is up in %.1f s (profile %s, data in %s)
                %s\
                  API        %s/v1/votes
                  health     %s/readyz
                  Kafka      %s
                  admin token %s
                Ctrl-C stops it.
                """, (System.nanoTime() - t0) / 1e9, node.runtime().profile().name(), dataDir, apps, base, base,
                kafka.bootstrap(), node.adminToken());
        stopped.await();
        return 0;
    }

    private static void awaitReady(TallyNode node) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!node.ready() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }
}
