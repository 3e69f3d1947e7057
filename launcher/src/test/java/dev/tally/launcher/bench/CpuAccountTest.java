package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuAccountTest {
    private static volatile long sink;

    @Test
    void threadsAreGroupedByTheStageTheirNameNames() {
        assertThat(CpuAccount.stageOf("tally-vote-processor-6f1c2a3b-8853-4b94-8fe0-196df272cb64-StreamThread-1"))
                .isEqualTo("vote-processor");
        assertThat(CpuAccount.stageOf("kafka-producer-network-thread | tally-fraud-detector-StreamThread-1-producer"))
                .isEqualTo("fraud-detector");
        assertThat(CpuAccount.stageOf("data-plane-kafka-request-handler-3")).isEqualTo("broker");
        assertThat(CpuAccount.stageOf("qtp123456-42")).isEqualTo("http-server");
        assertThat(CpuAccount.stageOf("tally-http-412")).isEqualTo("http-server");
        assertThat(CpuAccount.stageOf("kafka-producer-network-thread | tally-ingest-api")).isEqualTo("http-server");
        assertThat(CpuAccount.stageOf("bench-producer-0")).isEqualTo("load-generator");
        assertThat(CpuAccount.stageOf("main")).isEqualTo("load-generator");
        assertThat(CpuAccount.stageOf("something-else")).isEqualTo("other-threads");
    }

    @Test
    void theJvmsOwnThreadsAreReadFromProc() {
        assumeTrue(new java.io.File("/proc/self/task").isDirectory(), "Linux /proc");
        Map<String, Long> threads = CpuAccount.nativeThreadNanos();
        assertThat(threads).containsKey("VM Thread"); // not a Java thread: ThreadMXBean does not list it
        assertThat(threads.keySet()).anyMatch(name -> name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre"));
        assertThat(new CpuAccount().start().microsPerVote(1)).containsKeys("jit", "gc-and-vm", "jvm", "total");
    }

    @Test
    void aBusyThreadShowsUpInItsStageAndInTheTotal() throws Exception {
        CpuAccount account = new CpuAccount().start();
        Thread busy = busy("tally-count-projector-StreamThread-1", 200);
        Thread.sleep(150); // measured while it runs
        Map<String, Double> perVote = account.microsPerVote(1);
        busy.join();
        assertThat(perVote.get("count-projector")).isGreaterThan(10_000.0);
        assertThat(perVote.get("total")).isGreaterThanOrEqualTo(perVote.get("count-projector"));
    }

    @Test
    void aThreadThatEndsBeforeTheLastSnapshotStillCountsInItsStage() throws Exception {
        CpuAccount account = new CpuAccount().start();
        busy("bench-producer-0", 800).join(); // like the load's senders, which end once the last vote is sent
        Thread.sleep(300);
        Map<String, Double> perVote = account.microsPerVote(1);
        // read every 250 ms while it ran: at most that much of its 800 ms is missing
        assertThat(perVote.get("load-generator")).isGreaterThan(400_000.0);
        assertThat(perVote.get("jvm")).isLessThan(perVote.get("load-generator"));
    }

    /** Starts a thread named {@code name} that keeps a core busy for {@code millis}. */
    private static Thread busy(String name, long millis) {
        Thread busy = new Thread(() -> {
            long x = 0;
            long until = System.nanoTime() + millis * 1_000_000L;
            while (System.nanoTime() < until) {
                x += System.nanoTime() % 7;
            }
            sink = x; // keeps the loop from being optimised away
        }, name);
        busy.start();
        return busy;
    }
}
