package dev.tally.launcher;

import dev.tally.common.Env;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./tally <service> --bootstrap HOST:PORT}: one service against an existing cluster. */
@Command(description = "Runs one service against an existing Kafka cluster; start several side by side.",
        mixinStandardHelpOptions = true)
final class ServiceCommand implements Callable<Integer> {
    private final TallyNode.Service service;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers [TALLY_BOOTSTRAP]")
    String bootstrap;

    @Option(names = "--port", description = "HTTP port of the ingest API [TALLY_HTTP_PORT]")
    Integer httpPort;

    @Option(names = "--query-port", description = "interactive-query port of a Streams service [TALLY_QUERY_PORT, 8091]")
    Integer queryPort;

    @Option(names = "--data-dir", description = "local state directory [TALLY_DATA_DIR]")
    String dataDir;

    ServiceCommand(TallyNode.Service service) {
        this.service = service;
    }

    @Override
    public Integer call() throws InterruptedException {
        Map<String, String> overrides = new HashMap<>();
        if (bootstrap != null) {
            overrides.put("TALLY_BOOTSTRAP", bootstrap);
        }
        if (httpPort != null) {
            overrides.put("TALLY_HTTP_PORT", httpPort.toString());
        }
        if (queryPort != null) {
            overrides.put("TALLY_QUERY_PORT", queryPort.toString());
        }
        if (dataDir != null) {
            overrides.put("TALLY_DATA_DIR", dataDir);
        }
        TallyNode node = TallyNode.start(Env.system().with(overrides), Set.of(service));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
            stopped.countDown();
        }, "tally-shutdown"));
        System.out.println("tally " + service.cliName + " running against " + node.runtime().kafka().bootstrap()
                + (node.httpPort() > 0 ? " (http port " + node.httpPort() + ")" : "") + "; Ctrl-C stops it");
        stopped.await();
        return 0;
    }
}
