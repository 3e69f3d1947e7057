package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import dev.tally.launcher.TallyNode.Service;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The root {@code docker-compose.yml} against the configuration the code actually reads: every Tally
 * container's environment passes {@link TallyNode#validate} for its service, and sets no variable the
 * code never looks up. No Docker engine is needed; compose's {@code ${VAR:?msg}} interpolations are
 * replaced by dummy values long enough for every length check, as compose would fill them from the host.
 */
class ComposeFileTest {
    /** {@code ${NAME}}, {@code ${NAME:?msg}}, {@code ${NAME:-default}} and their forms without the colon. */
    private static final Pattern INTERPOLATION = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?+][^}]*)?}");
    private static final Pattern REQUIRED_INTERPOLATION = Pattern.compile("\\$\\{([A-Z0-9_]+):\\?[^}]+}");
    private static final Pattern SECRET_NAME = Pattern.compile(".*(SECRET|TOKEN|PASSWORD).*");

    /** The file as written, and as compose would run it (interpolated): service name to definition. */
    private static Map<String, Map<String, Object>> written;
    private static Map<String, Map<String, Object>> services;

    @BeforeAll
    static void load() throws IOException {
        String text = Files.readString(composeFile());
        written = servicesOf(text);
        services = servicesOf(INTERPOLATION.matcher(text)
                .replaceAll(m -> "dummy-" + m.group(1).toLowerCase() + "-" + "x".repeat(32)));
    }

    @Test
    void threeKraftBrokersFormOneQuorumWithUniqueNodeIds() {
        Map<String, Map<String, String>> brokers = brokers();
        assertThat(brokers).hasSize(3);
        brokers.forEach((name, env) -> {
            assertThat(services.get(name).get("image")).as(name).asString().matches("apache/kafka:4\\.\\d+\\.\\d+");
            assertThat(env.get("KAFKA_PROCESS_ROLES")).as(name).isEqualTo("broker,controller");
            assertThat(env.get("KAFKA_ADVERTISED_LISTENERS")).as(name).isEqualTo("PLAINTEXT://" + name + ":9092");
        });
        List<String> nodeIds = brokers.values().stream().map(env -> env.get("KAFKA_NODE_ID")).toList();
        assertThat(nodeIds).doesNotHaveDuplicates().doesNotContainNull();
        assertThat(brokers.values()).extracting(env -> env.get("CLUSTER_ID")).doesNotContainNull().containsOnly(
                brokers.values().iterator().next().get("CLUSTER_ID"));

        for (Map<String, String> env : brokers.values()) {
            // "1@kafka-1:9093,2@kafka-2:9093,...": node id -> the broker that runs it
            Map<String, String> voters = Arrays.stream(env.get("KAFKA_CONTROLLER_QUORUM_VOTERS").split(","))
                    .map(v -> v.split("[@:]"))
                    .collect(Collectors.toMap(v -> v[0], v -> v[1]));
            Map<String, String> expected = brokers.entrySet().stream()
                    .collect(Collectors.toMap(b -> b.getValue().get("KAFKA_NODE_ID"), Map.Entry::getKey));
            assertThat(voters).isEqualTo(expected);
        }
    }

    @Test
    void brokersReplicateEveryTopicThreeWaysAndRequireTwoInSyncReplicas() {
        brokers().forEach((name, env) -> assertThat(env).as(name)
                .containsEntry("KAFKA_DEFAULT_REPLICATION_FACTOR", "3")
                .containsEntry("KAFKA_MIN_INSYNC_REPLICAS", "2")
                .containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "3")
                .containsEntry("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "3")
                .containsEntry("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "2"));
    }

    @Test
    void runsOneIngestApiAndTwoInstancesOfEachStreamsServiceAllBuiltFromThisRepository() {
        Map<Service, Long> counts = tallyServices().values().stream()
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(counts).isEqualTo(Map.of(Service.INGEST_API, 1L, Service.VOTE_PROCESSOR, 2L,
                Service.COUNT_PROJECTOR, 2L, Service.FRAUD_DETECTOR, 2L));
        tallyServices().keySet().forEach(name -> assertThat(services.get(name)).as(name).containsEntry("build", "."));
    }

    /**
     * Compose reads YAML 1.2 and this test's parser YAML 1.1: an unquoted {@code on}, {@code yes} or {@code 3}
     * may mean different things to them, a quoted value means the same text to both.
     */
    @Test
    void everyEnvironmentEntryIsANamedVariableWithAQuotedValue() {
        services.forEach((name, service) -> environment(service).forEach((key, value) -> {
            assertThat(key).as(name + ": variable name (a YAML merge key left unresolved?)").matches("[A-Z][A-Z0-9_]*");
            assertThat(value).as(name + ": " + key).isInstanceOf(String.class);
        }));
    }

    /** The key check: the compose file configures exactly what the code reads, nothing it ignores. */
    @Test
    void everyTallyServiceValidatesAndSetsOnlyVariablesTheCodeReads() {
        SoftAssertions soft = new SoftAssertions();
        tallyServices().forEach((name, service) -> {
            try {
                soft.assertThat(unreadVariables(env(name), service))
                        .as("%s (%s) sets variables its code never reads", name, service.cliName)
                        .isEmpty();
            } catch (Env.ConfigException e) {
                soft.fail("%s (%s) does not validate: %s", name, service.cliName, e.getMessage());
            }
        });
        soft.assertAll();
    }

    @Test
    void publishedPortsQueryAddressesAndServiceUrlsMatchTheConfiguredPorts() {
        Map<String, Service> tally = tallyServices();
        tally.forEach((name, service) -> {
            Map<String, String> env = env(name);
            switch (service) {
                case INGEST_API -> assertThat(containerPorts(name, "ports")).as(name)
                        .containsExactly(env.get("TALLY_HTTP_PORT"));
                case VOTE_PROCESSOR, COUNT_PROJECTOR -> {
                    assertThat(env.get("TALLY_QUERY_HOST")).as(name).isEqualTo(name);
                    assertThat(containerPorts(name, "expose")).as(name).containsExactly(env.get("TALLY_QUERY_PORT"));
                }
                case FRAUD_DETECTOR -> assertThat(env).as(name).doesNotContainKeys("TALLY_QUERY_HOST", "TALLY_QUERY_PORT");
            }
        });

        String ingest = only(Service.INGEST_API);
        Map<String, Service> urlTargets = Map.of("TALLY_PROJECTOR_URL", Service.COUNT_PROJECTOR,
                "TALLY_PROCESSOR_URL", Service.VOTE_PROCESSOR);
        urlTargets.forEach((variable, target) -> {
            URI url = URI.create(env(ingest).get(variable));
            assertThat(tally.get(url.getHost())).as("%s=%s names a %s", variable, url, target.cliName).isEqualTo(target);
            assertThat(String.valueOf(url.getPort())).as(variable).isEqualTo(env(url.getHost()).get("TALLY_QUERY_PORT"));
        });
    }

    @Test
    void everyServiceThatServesHttpHasAReadinessHealthcheckOnItsOwnPort() {
        tallyServices().forEach((name, service) -> {
            String port = service == Service.INGEST_API ? env(name).get("TALLY_HTTP_PORT") : env(name).get("TALLY_QUERY_PORT");
            if (port == null) {
                assertThat(services.get(name)).as(name + " serves no HTTP").doesNotContainKey("healthcheck");
                return;
            }
            Map<?, ?> healthcheck = (Map<?, ?>) services.get(name).get("healthcheck");
            assertThat(healthcheck).as(name).isNotNull();
            assertThat(healthcheck.get("test").toString()).as(name).contains("http://localhost:" + port + "/readyz");
        });
    }

    @Test
    void servicesBootstrapFromAllThreeBrokersAtTheirInternalListener() {
        Map<String, Map<String, String>> brokers = brokers();
        Set<String> listeners = brokers.values().stream()
                .map(env -> env.get("KAFKA_ADVERTISED_LISTENERS").replace("PLAINTEXT://", ""))
                .collect(Collectors.toSet());
        int minIsr = Integer.parseInt(brokers.values().iterator().next().get("KAFKA_MIN_INSYNC_REPLICAS"));
        tallyServices().keySet().forEach(name -> {
            Map<String, String> env = env(name);
            assertThat(Set.of(env.get("TALLY_BOOTSTRAP").split(","))).as(name).isEqualTo(listeners);
            // one broker may be down and acks=all writes still reach min.insync.replicas
            assertThat(Integer.parseInt(env.get("TALLY_REPLICATION_FACTOR"))).as(name)
                    .isLessThanOrEqualTo(brokers.size()).isGreaterThan(minIsr);
            assertThat(((Map<?, ?>) services.get(name).get("depends_on")).keySet()).as(name + " depends_on")
                    .isEqualTo(brokers.keySet());
        });
    }

    @Test
    void runsOutsideTheDevProfileWithSecretsRequiredFromTheHostEnvironment() {
        tallyServices().keySet().forEach(name ->
                assertThat(Profile.from(Env.of(env(name))).isDev()).as(name + " runs the dev profile").isFalse());
        assertThat(env(only(Service.INGEST_API))).containsKeys("TALLY_SECRET", "TALLY_ADMIN_TOKEN");
        written.forEach((name, service) -> environment(service).forEach((variable, value) -> {
            if (SECRET_NAME.matcher(variable).matches()) {
                var m = REQUIRED_INTERPOLATION.matcher(String.valueOf(value));
                assertThat(m.matches()).as("%s: %s must be ${%s:?message}, not a literal", name, variable, variable).isTrue();
                assertThat(m.group(1)).as(name + ": " + variable).isEqualTo(variable);
            }
        }));
    }

    /** The key check can fail: a variable the code ignores is reported, a missing prod secret is refused. */
    @Test
    void aVariableTheCodeIgnoresIsReportedAsUnread() {
        String processor = tallyServices().entrySet().stream()
                .filter(e -> e.getValue() == Service.VOTE_PROCESSOR).findFirst().orElseThrow().getKey();
        Map<String, String> env = new HashMap<>(env(processor));
        env.put("TALLY_FOO", "1");
        env.put("TALLY_ADMIN_TOKEN", "read-by-the-ingest-api-only");
        assertThat(unreadVariables(env, Service.VOTE_PROCESSOR)).containsExactly("TALLY_ADMIN_TOKEN", "TALLY_FOO");
    }

    @Test
    void aMissingSecretOutsideTheDevProfileFailsValidation() {
        Map<String, String> env = new HashMap<>(env(only(Service.INGEST_API)));
        env.remove("TALLY_SECRET");
        assertThatThrownBy(() -> TallyNode.validate(Env.of(env), Set.of(Service.INGEST_API)))
                .isInstanceOf(Env.ConfigException.class)
                .hasMessageContaining("TALLY_SECRET");
    }

    // ---- helpers ----

    /** Validates {@code env} for {@code service}, then returns the TALLY_* variables it sets but the code never read. */
    private static Set<String> unreadVariables(Map<String, String> env, Service service) {
        Env tallyEnv = Env.of(env);
        TallyNode.validate(tallyEnv, Set.of(service));
        Set<String> unread = new TreeSet<>(env.keySet());
        unread.removeIf(name -> !name.startsWith("TALLY_"));
        unread.removeAll(tallyEnv.namesRead());
        return unread;
    }

    /** Tally containers by name, with the service their {@code command} runs. */
    private static Map<String, Service> tallyServices() {
        Map<String, Service> tally = new LinkedHashMap<>();
        services.forEach((name, service) -> {
            if (service.get("command") instanceof List<?> command && !command.isEmpty()) {
                Arrays.stream(Service.values()).filter(s -> s.cliName.equals(command.get(0)))
                        .findFirst().ifPresent(s -> tally.put(name, s));
            }
        });
        return tally;
    }

    private static String only(Service service) {
        List<String> names = tallyServices().entrySet().stream().filter(e -> e.getValue() == service)
                .map(Map.Entry::getKey).toList();
        assertThat(names).as(service.cliName).hasSize(1);
        return names.get(0);
    }

    /** Kafka containers by name, with their environment. */
    private static Map<String, Map<String, String>> brokers() {
        Map<String, Map<String, String>> brokers = new LinkedHashMap<>();
        services.forEach((name, service) -> {
            if (String.valueOf(service.get("image")).startsWith("apache/kafka:")) {
                brokers.put(name, env(name));
            }
        });
        return brokers;
    }

    /** A container's environment as compose passes it (merge keys resolved, values as text). */
    private static Map<String, String> env(String name) {
        Map<String, String> env = new LinkedHashMap<>();
        environment(services.get(name)).forEach((key, value) -> env.put(key, String.valueOf(value)));
        return env;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> environment(Map<String, Object> service) {
        Object environment = service.get("environment");
        return environment == null ? Map.of() : (Map<String, Object>) environment;
    }

    /** Container ports of {@code ports} ("127.0.0.1:8080:8080", "8080:8080/tcp") or {@code expose} ("8091"). */
    private static List<String> containerPorts(String name, String key) {
        List<?> entries = (List<?>) services.get(name).getOrDefault(key, List.of());
        return entries.stream().map(String::valueOf)
                .map(p -> p.substring(p.lastIndexOf(':') + 1).replaceFirst("/.*", "")).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> servicesOf(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false); // as compose: a repeated key is an error, not a silent override
        Map<String, Object> root = new Yaml(options).load(yaml);
        return (Map<String, Map<String, Object>>) root.get("services");
    }

    /** docker-compose.yml at the repository root, found from the module directory surefire runs in. */
    private static Path composeFile() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("docker-compose.yml");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no docker-compose.yml above " + Path.of("").toAbsolutePath());
    }
}
