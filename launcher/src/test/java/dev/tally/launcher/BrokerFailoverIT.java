package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.broker.EmbeddedKafka;
import dev.tally.common.Env;
import dev.tally.common.KafkaSettings;
import dev.tally.launcher.bench.EventLog;
import dev.tally.launcher.bench.HttpDriver;
import dev.tally.launcher.bench.HttpLoad;
import dev.tally.launcher.bench.LoadStats;
import dev.tally.launcher.bench.LogAudit;
import dev.tally.launcher.bench.NodeDrill;
import dev.tally.launcher.bench.Workload;
import dev.tally.processor.VoteProcessorConfig;
import dev.tally.projector.CountProjectorConfig;
import dev.tally.schemas.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replicated shape: a three-broker KRaft cluster in this JVM (each node broker and controller),
 * Tally on it with replication factor 3, {@code min.insync.replicas} 2 and one standby of every store.
 * Under paced HTTP votes and reads, the broker that is the active controller — and leads partitions — is
 * stopped for 10 s and started again. Writes go on while it is down (a vote may be refused with 503
 * during the election, and is then sent again), reads keep answering, the broker rejoins every ISR, and
 * every vote is in the event log exactly once with the views equal to the log.
 */
class BrokerFailoverIT {
    private static final int RATE = 100;

    @Test
    void losingTheActiveControllerAndPartitionLeadersUnderLoadLosesNothingAndReadsGoOn(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        try (EmbeddedKafka cluster = EmbeddedKafka.startCluster(dir.resolve("kafka"), 3)) {
            Map<String, String> vars = BenchCommand.benchEnv(dir.resolve("node"), cluster.bootstrap());
            vars.put("TALLY_PARTITIONS", "4");
            vars.put("TALLY_REPLICATION_FACTOR", "3");
            Env env = Env.of(vars);
            TallyNode node = TallyNode.start(env, EnumSet.allOf(TallyNode.Service.class));
            try {
                await(node::ready, Duration.ofSeconds(90), "the services RUNNING on the cluster");
                KafkaSettings kafka = node.runtime().kafka();
                assertThat(kafka.standbyReplicas()).isEqualTo(1);
                assertThat(replicationOf(kafka, Topics.VOTE_COMMANDS.name())).isEqualTo(3);
                String base = "http://127.0.0.1:" + node.httpPort();
                LoadStats stats = new LoadStats(0, Long.MAX_VALUE / 4, Long.MAX_VALUE / 2 + System.nanoTime(), RATE, false);
                ReadProbe reads = new ReadProbe(base);
                try (HttpDriver http = new HttpDriver(base, 16, "failover-http")) {
                    Thread load = new Thread(() -> {
                        try {
                            HttpLoad.run(http, Workload.UNIFORM, 0, stats, null);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }, "failover-load");
                    load.start();
                    reads.start();
                    Thread.sleep(4_000);

                    int victim = cluster.activeController();
                    long led = leadershipsOf(kafka, victim);
                    System.out.printf("BrokerFailoverIT: stopping broker %d, the active controller, leader of %d partitions%n",
                            victim, led);
                    assertThat(led).as("the stopped broker leads partitions").isPositive();
                    long ackedBefore = stats.acknowledged();
                    reads.reset();
                    cluster.stopBroker(victim);
                    Thread.sleep(10_000);
                    long ackedWhileDown = stats.acknowledged() - ackedBefore;
                    long readsWhileDown = reads.ok();
                    long readFailuresWhileDown = reads.failed();
                    assertThat(cluster.activeController()).as("a new active controller").isNotEqualTo(victim);

                    cluster.startBroker(victim);
                    await(() -> fullIsr(kafka), Duration.ofSeconds(90), "broker " + victim + " back in every ISR");
                    Thread.sleep(3_000);
                    stats.stop();
                    load.join(TimeUnit.MINUTES.toMillis(2));
                    reads.stop();
                    System.out.printf("BrokerFailoverIT: while broker %d was down: %d votes acknowledged, %d reads answered,"
                                    + " %d reads failed; in all %d acknowledged, %d refused (first: %s)%n", victim, ackedWhileDown,
                            readsWhileDown, readFailuresWhileDown, stats.acknowledged(), stats.failed(), stats.firstError());
                    assertThat(ackedWhileDown).as("writes go on while a broker is down").isGreaterThan(RATE * 2L);
                    assertThat(readsWhileDown).as("reads go on while a broker is down").isGreaterThan(50);
                    if (stats.failed() > 0) {
                        assertThat(stats.firstError()).as("a vote is refused only as 503 (the election)").startsWith("HTTP 503");
                    }
                    HttpLoad.sendUntilAcknowledged(http, stats.refusedVotes(), System.err);
                }
                long votes = stats.acknowledged() + stats.failed();
                assertThat(EventLog.awaitProcessed(kafka, VoteProcessorConfig.from(env).applicationId(), Duration.ofMinutes(3)))
                        .as("every command processed").isTrue();
                LogAudit audit = EventLog.read(kafka, kafka.partitions());
                LogAudit.Tallies tallies = audit.tallies(votes);
                System.out.printf("BrokerFailoverIT: %d votes, %d events, lost %d, double-counted %d%n", votes,
                        audit.events(), tallies.lost(), tallies.doubleCounted());
                assertThat(tallies.lost()).as("lost").isZero();
                assertThat(tallies.doubleCounted()).as("double-counted").isZero();
                assertThat(audit.events()).isEqualTo(votes);
                assertThat(NodeDrill.reconcileDrift(kafka, CountProjectorConfig.from(env).applicationId()))
                        .as("reconcile drift").isZero();
            } finally {
                node.close();
            }
        }
    }

    /** Reads one item every 50 ms, counting answers (200) and failures. */
    private static final class ReadProbe {
        private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final HttpRequest request;
        private final AtomicLong ok = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread = new Thread(this::loop, "failover-reads");

        ReadProbe(String base) {
            request = HttpRequest.newBuilder(URI.create(base + "/v1/votes/post/i1")).timeout(Duration.ofSeconds(5)).build();
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }

        void reset() {
            ok.set(0);
            failed.set(0);
        }

        long ok() {
            return ok.get();
        }

        long failed() {
            return failed.get();
        }

        private void loop() {
            while (running.get()) {
                try {
                    (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200 ? ok : failed).incrementAndGet();
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    failed.incrementAndGet();
                }
            }
        }
    }

    private static int replicationOf(KafkaSettings kafka, String topic) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("failover-it"))) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0).replicas().size();
        }
    }

    /** Partitions of every topic whose leader is {@code broker}. */
    private static long leadershipsOf(KafkaSettings kafka, int broker) throws Exception {
        try (Admin admin = Admin.create(kafka.clientProps("failover-it"))) {
            var names = admin.listTopics().names().get();
            return admin.describeTopics(names).allTopicNames().get().values().stream()
                    .flatMap(d -> d.partitions().stream())
                    .filter(p -> p.leader() != null && p.leader().id() == broker).count();
        }
    }

    /** Every partition of every topic has all its replicas in sync. */
    private static boolean fullIsr(KafkaSettings kafka) {
        try (Admin admin = Admin.create(kafka.clientProps("failover-it"))) {
            var names = admin.listTopics().names().get();
            for (TopicDescription d : admin.describeTopics(names).allTopicNames().get().values()) {
                if (d.partitions().stream().anyMatch(p -> p.isr().size() < p.replicas().size())) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, Duration timeout, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }
}
