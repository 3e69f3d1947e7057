package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Tally on a cluster secured as managed Kafka is — SASL_SSL (SCRAM-SHA-512 over TLS), or TLS with client certificates
 * — behind the StandardAuthorizer that allows nothing without an ACL, granted exactly what {@code ./tally acls}
 * prints, applied with Kafka's own ACL tool. A node runs the whole path through {@code ./tally up --bootstrap}; with
 * any one of those ACLs removed a node refuses to start within 60 s naming the permission; no password from the client
 * settings or a secret file appears in any output or log.
 */
class SecuredKafkaIT {
    private static final Pattern ACL = Pattern.compile("--operation (\\S+) --(topic|group|transactional-id) (\\S+) ");

    @TempDir
    Path dir;

    @Test
    void aNodeRunsOnSaslSslWithOnlyThePrintedAclsAndRefusesToStartWithoutAnyOne() throws Exception {
        try (SecuredKafka kafka = SecuredKafka.saslSsl(dir, "tally")) {
            List<String> acls = printedAcls("User:tally", kafka);
            assertThat(acls).hasSizeGreaterThanOrEqualTo(8);
            acls.forEach(KafkaTools::run);

            Path secret = write("secret", "file-secret-" + UUID.randomUUID());
            Path token = write("token", "file-token-" + UUID.randomUUID());
            Map<String, String> env = new HashMap<>(Map.of("TALLY_KAFKA_CONFIG", kafka.client("tally").properties().toString(),
                    "TALLY_DATA_DIR", dir.resolve("node").toString(), "TALLY_SECRET_FILE", secret.toString(),
                    "TALLY_ADMIN_TOKEN_FILE", token.toString(), "TALLY_PARTITIONS", "2",
                    "TALLY_HTTP_PORT", Integer.toString(dev.tally.broker.FreePort.pick())));
            String output = runTheWholePathThroughUp(env, kafka);

            List<String> secrets = new ArrayList<>(kafka.client("tally").secrets());
            secrets.add(Files.readString(secret).strip());
            secrets.add(Files.readString(token).strip());
            assertNoSecretIn(output, dir.resolve("node"), secrets);

            for (String line : acls) {
                KafkaTools.run(line.replace(" --add ", " --remove --force "));
                try {
                    String named = describe(line);
                    long t0 = System.nanoTime();
                    assertThatThrownBy(() -> startInProcess(env, kafka)).as("without %s", named)
                            .isInstanceOf(Env.ConfigException.class).hasMessageContaining(named)
                            .satisfies(e -> secrets.forEach(s -> assertThat(e.getMessage()).doesNotContain(s)));
                    assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("refused in time").isLessThan(Duration.ofSeconds(60));
                } finally {
                    KafkaTools.run(line);
                }
            }

            String wrong = "wrong-password-" + UUID.randomUUID();
            Path badLogin = write("bad.properties", Files.readString(kafka.client("tally").properties())
                    .replace(kafka.client("tally").secrets().get(0), wrong));
            assertThat(Files.readString(badLogin)).contains(wrong);
            Map<String, String> refused = new HashMap<>(env);
            refused.put("TALLY_KAFKA_CONFIG", badLogin.toString());
            assertThatThrownBy(() -> startInProcess(refused, kafka)).isInstanceOf(Env.ConfigException.class)
                    .hasMessageContaining("refused this node's credentials").hasMessageNotContaining(wrong);
        }
    }

    @Test
    void aNodeRunsOnMutualTlsWithItsCertificateAsThePrincipal() throws Exception {
        try (SecuredKafka kafka = SecuredKafka.mutualTls(dir, "tally")) {
            printedAcls("User:tally", kafka).forEach(KafkaTools::run);
            Map<String, String> env = Map.of("TALLY_KAFKA_CONFIG", kafka.client("tally").properties().toString(),
                    "TALLY_DATA_DIR", dir.resolve("node").toString(), "TALLY_HTTP_PORT", "0", "TALLY_PARTITIONS", "2",
                    "TALLY_SECRET", "mutual-tls-test-secret-0123456789abcdef", "TALLY_SYNC_TIMEOUT", "10s");
            TallyNode node = startInProcess(env, kafka);
            try {
                TallyClient client = new TallyClient(node.httpPort());
                var answer = client.vote("mtls-voter", "{\"item_type\":\"post\",\"item_id\":\"mtls\",\"vote_value\":1}");
                assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
                assertThat(answer.body().at("/counts/upvotes").asLong()).isEqualTo(1);
            } finally {
                node.close();
            }
        }
    }

    /** {@code ./tally acls} as a user types it, its lines that grant something. */
    private static List<String> printedAcls(String principal, SecuredKafka kafka) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int rc = new CommandLine(new Tally()).execute("acls", "--principal", principal, "--bootstrap", kafka.bootstrap(),
                    "--command-config", kafka.admin().properties().toString());
            assertThat(rc).isZero();
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("kafka-acls.sh ")).toList();
    }

    /** {@code Read on topics prefixed 'tally.'}: how a refused start names the permission of an ACL line. */
    private static String describe(String line) {
        Matcher m = ACL.matcher(line);
        assertThat(m.find()).as(line).isTrue();
        String resource = switch (m.group(2)) {
            case "topic" -> "topics";
            case "group" -> "consumer groups";
            default -> "transactional ids";
        };
        return m.group(1) + " on " + resource + " prefixed '" + m.group(3) + "'";
    }

    private static TallyNode startInProcess(Map<String, String> env, SecuredKafka kafka) throws InterruptedException {
        Map<String, String> vars = new HashMap<>(env);
        vars.put("TALLY_BOOTSTRAP", kafka.bootstrap());
        TallyNode node = TallyNode.start(Env.of(vars), EnumSet.allOf(TallyNode.Service.class));
        try {
            assertThat(node.awaitReady(Duration.ofSeconds(60))).as("ready within 60 s").isTrue();
            return node;
        } catch (RuntimeException | Error e) {
            node.close();
            throw e;
        }
    }

    /**
     * {@code ./tally up --bootstrap} as a child process: a vote, its count, the event log through {@code ./tally tail},
     * a reconcile; returns everything the node and the commands printed.
     */
    private String runTheWholePathThroughUp(Map<String, String> env, SecuredKafka kafka) throws Exception {
        StringBuffer output = new StringBuffer();
        Process node = child(env, "up", "--bootstrap", kafka.bootstrap()).start();
        Thread pump = new Thread(() -> {
            try {
                node.getInputStream().transferTo(new java.io.OutputStream() {
                    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

                    @Override
                    public void write(int b) {
                        line.write(b);
                        if (b == '\n') {
                            output.append(line.toString(StandardCharsets.UTF_8));
                            line.reset();
                        }
                    }
                });
            } catch (IOException e) {
                // the node was stopped: its output ends here
            }
        }, "secured-it-node-output");
        pump.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!output.toString().contains("Tally is up") && node.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(output.toString()).as("the node's output").contains("Tally is up");
            TallyClient client = new TallyClient(Integer.parseInt(env.get("TALLY_HTTP_PORT")));
            var answer = client.vote("secured-voter", "{\"item_type\":\"post\",\"item_id\":\"secured\",\"vote_value\":1}");
            assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
            assertThat(answer.body().at("/counts/upvotes").asLong()).isEqualTo(1);
            assertThat(client.get("secured-voter", "/v1/votes/post/secured").body().path("user_vote").asInt()).isEqualTo(1);

            String tail = run(env, output, "tail", "tally.vote-events", "--from-beginning", "--max", "5", "--bootstrap", kafka.bootstrap());
            assertThat(tail).contains("\"item_id\":\"secured\"");
            String reconcile = run(env, output, "reconcile", "--bootstrap", kafka.bootstrap());
            assertThat(reconcile).contains("drift=0");
        } finally {
            node.destroy();
            if (!node.waitFor(60, TimeUnit.SECONDS)) {
                node.destroyForcibly();
            }
            pump.join(10_000);
        }
        return output.toString();
    }

    private static ProcessBuilder child(Map<String, String> env, String... args) {
        ProcessBuilder pb = dev.tally.launcher.bench.ChildTally.command(384, "128m", args).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("TALLY_"));
        pb.environment().putAll(env);
        return pb;
    }

    private static String run(Map<String, String> env, StringBuffer output, String... args) throws Exception {
        Process p = child(env, args).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        output.append(out);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    private static void assertNoSecretIn(String output, Path dataDir, List<String> secrets) throws IOException {
        List<Path> logs;
        try (Stream<Path> files = Files.walk(dataDir.resolve("logs"))) {
            logs = files.filter(Files::isRegularFile).toList();
        }
        assertThat(logs).as("the node's log files").isNotEmpty();
        for (String s : secrets) {
            assertThat(output).as("the node's and the commands' output").doesNotContain(s);
            for (Path log : logs) {
                assertThat(Files.readString(log)).as(log.toString()).doesNotContain(s);
            }
        }
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content + "\n");
    }
}
