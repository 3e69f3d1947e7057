package dev.tally.broker;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.UnregisterBrokerOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a single node restarted after an unclean stop (SIGKILL, a power cut) register its broker at once
 * instead of waiting out the killed incarnation's session.
 *
 * <p>The node's controller restarts with it and, as it becomes active, grants every broker its metadata log
 * holds as running a fresh session of {@code broker.session.timeout.ms}; until that expires it refuses the new
 * incarnation (DUPLICATE_BROKER_REGISTRATION, tried again every heartbeat interval), then fences the old one and
 * takes the new one at its next try. On a single node that registration belongs to a process that is gone (this
 * one holds the log directory's lock), so the wait, a session long, protects nothing
 * (docs/decisions/0011-crash-recovery.md). This unregisters it as soon as the controller is active, through the
 * controller's listener — the Admin API's {@code unregisterBroker}, what an operator does for a broker that is gone.
 *
 * <p>It must reach the killed incarnation's registration, never the new one's. The controller cannot take the new
 * incarnation before the session it granted at activation expires ({@link EmbeddedKafka#BROKER_SESSION} later);
 * the request goes out the moment the controller is seen active and is given up {@link #WINDOW} after, so it is
 * handled while the old registration still stands (requests to the controller are handled in order: one sent
 * sooner is handled sooner). Given up, the broker registers the old way. Not for a cluster: there the active
 * controller may be another node, whose sessions did not start with this one.
 */
final class KilledIncarnation {
    private static final Logger LOG = LoggerFactory.getLogger(KilledIncarnation.class);
    /** Kafka's marker of a clean stop in a log directory ({@code CleanShutdownFileHandler}), removed as it starts. */
    private static final String CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
    /** How long after the controller is seen active the request may take: well inside the session (1 s of 2.5). */
    private static final Duration WINDOW = EmbeddedKafka.BROKER_SESSION.multipliedBy(2).dividedBy(5);
    /** How long to wait for the controller to become active: the node's start gives up sooner. */
    private static final Duration ACTIVATION = Duration.ofMinutes(2);
    private static final String ACTIVE_CONTROLLER = "kafka.controller:type=KafkaController,name=ActiveControllerCount";

    private KilledIncarnation() {}

    /** Whether the node in {@code dir} was started before and did not stop cleanly. Ask before it starts. */
    static boolean leftIn(Path dir) {
        return Files.exists(dir.resolve("meta.properties")) && !Files.exists(dir.resolve(CLEAN_SHUTDOWN_FILE));
    }

    /**
     * Starts a daemon thread that waits for this JVM's controller to become active and unregisters broker
     * {@code brokerId} through its listener on {@code controllerPort}; call it just before the node starts.
     * Completes with whether it did.
     */
    static CompletableFuture<Boolean> forget(int brokerId, int controllerPort) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        Thread t = new Thread(() -> done.complete(unregister(brokerId, controllerPort)), "embedded-kafka-forget-killed-broker");
        t.setDaemon(true);
        t.start();
        return done;
    }

    private static boolean unregister(int brokerId, int controllerPort) {
        long t0 = System.nanoTime();
        long giveUp = t0 + ACTIVATION.toNanos();
        try {
            // an admin client made before the controller's listener accepts would log each refused connection
            if (!await(() -> accepts(controllerPort), giveUp)) {
                return false;
            }
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, "127.0.0.1:" + controllerPort);
            p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tally-embedded-broker-forget-killed");
            p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "20");
            p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "100");
            // made before the controller is active: the broker's first registration follows activation closely
            try (Admin admin = Admin.create(p)) {
                if (!await(KilledIncarnation::active, giveUp)) {
                    return false;
                }
                admin.unregisterBroker(brokerId, new UnregisterBrokerOptions().timeoutMs((int) WINDOW.toMillis())).all().get();
                LOG.info("unregistered broker {}'s killed incarnation {} ms after the start: the new one need not wait"
                        + " out its session", brokerId, (System.nanoTime() - t0) / 1_000_000);
                return true;
            }
        } catch (ExecutionException e) {
            LOG.info("did not unregister broker {}'s killed incarnation ({}): it registers once that session expires",
                    brokerId, e.getCause().toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether {@code condition} held before {@code giveUp} (a {@link System#nanoTime} instant), polled every 2 ms. */
    private static boolean await(BooleanSupplier condition, long giveUp) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > giveUp) {
                return false;
            }
            Thread.sleep(2);
        }
        return true;
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 100);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether this JVM's controller is active (Kafka's {@code ActiveControllerCount} gauge). */
    private static boolean active() {
        try {
            Object v = ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(ACTIVE_CONTROLLER), "Value");
            return v instanceof Number n && n.intValue() == 1;
        } catch (JMException e) {
            return false; // not registered yet
        }
    }
}
