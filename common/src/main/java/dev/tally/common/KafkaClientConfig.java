package dev.tally.common;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Kafka client settings an operator gives Tally — security above all ({@code security.protocol}, {@code sasl.*},
 * {@code ssl.*}) — applied to every client Tally makes: producers, consumers, admin clients, Kafka Streams and the
 * clients it makes, and every CLI command.
 *
 * <p>Two sources, the way Kafka's own tools and container images take them:
 * <ul>
 *   <li>{@code TALLY_KAFKA_CONFIG}: a properties file in the format of the Kafka tools' {@code --command-config};</li>
 *   <li>{@code TALLY_KAFKA_<NAME>}: one setting each, named as Kafka's container images name theirs: upper case,
 *       {@code _} for {@code .}, {@code __} for {@code _}, {@code ___} for {@code -}
 *       ({@code TALLY_KAFKA_SECURITY_PROTOCOL} → {@code security.protocol}); these win over the file.
 *       {@code TALLY_KAFKA_PORT} (the embedded broker's port) and {@code TALLY_KAFKA_CONFIG} are not settings.</li>
 * </ul>
 *
 * <p>Settings that Tally owns cannot be changed by mistake: exactly-once, isolation, serdes, ids, and the settings
 * that have a variable of their own ({@code bootstrap.servers} is {@code TALLY_BOOTSTRAP}). Setting one, with or
 * without a Kafka Streams prefix ({@code producer.acks}), stops the start with a message naming it. No value ever
 * appears in a message or in {@link #toString()}: they may be passwords.
 */
public final class KafkaClientConfig {
    public static final String FILE_VARIABLE = "TALLY_KAFKA_CONFIG";
    static final String PREFIX = "TALLY_KAFKA_";
    /** {@code TALLY_KAFKA_*} variables that are Tally's own, not client settings. */
    private static final Set<String> NOT_SETTINGS = Set.of(FILE_VARIABLE, "TALLY_KAFKA_PORT");
    /** The prefixes Kafka Streams gives settings meant for one of its clients. */
    private static final List<String> CLIENT_PREFIXES = List.of("main.consumer.", "restore.consumer.", "global.consumer.",
            "consumer.", "producer.", "admin.");
    /** Settings Tally owns, and why; a setting with a variable of its own says which. */
    private static final Map<String, String> OWNED = Map.ofEntries(
            Map.entry("bootstrap.servers", "set it with TALLY_BOOTSTRAP"),
            Map.entry("client.id", "Tally names each of its clients"),
            Map.entry("compression.type", "set it with TALLY_COMPRESSION"),
            Map.entry("processing.guarantee", "Tally runs exactly-once"),
            Map.entry("isolation.level", "Tally reads only committed records"),
            Map.entry("enable.idempotence", "Tally's producers are idempotent"),
            Map.entry("acks", "Tally's producers wait for every in-sync replica"),
            Map.entry("transactional.id", "Tally names its transactions after its namespace"),
            Map.entry("application.id", "Tally names its applications after its namespace (TALLY_NAMESPACE)"),
            Map.entry("group.id", "Tally names its groups after its namespace (TALLY_NAMESPACE)"),
            Map.entry("group.instance.id", "Tally keeps each instance's id in its state directory"),
            Map.entry("enable.auto.commit", "Tally commits offsets in its transactions"),
            Map.entry("application.server", "Tally advertises its own query address"),
            Map.entry("state.dir", "set it with TALLY_DATA_DIR"),
            Map.entry("commit.interval.ms", "set it with TALLY_COMMIT_INTERVAL"),
            Map.entry("replication.factor", "set it with TALLY_REPLICATION_FACTOR"),
            Map.entry("num.standby.replicas", "set it with TALLY_STANDBY_REPLICAS"),
            Map.entry("key.serializer", "Tally's records have their own serdes"),
            Map.entry("value.serializer", "Tally's records have their own serdes"),
            Map.entry("key.deserializer", "Tally's records have their own serdes"),
            Map.entry("value.deserializer", "Tally's records have their own serdes"),
            Map.entry("default.key.serde", "Tally's records have their own serdes"),
            Map.entry("default.value.serde", "Tally's records have their own serdes"));

    /** No settings: a cluster without security, as {@code ./tally up}'s own broker. */
    public static final KafkaClientConfig NONE = new KafkaClientConfig(Map.of());

    private final Map<String, String> settings;

    private KafkaClientConfig(Map<String, String> settings) {
        this.settings = Map.copyOf(settings);
    }

    /**
     * The settings of {@code TALLY_KAFKA_CONFIG} and {@code TALLY_KAFKA_*}.
     *
     * @throws Env.ConfigException naming the file or the setting (never a value) when the file cannot be read or a
     *                             setting is Tally's own
     */
    public static KafkaClientConfig from(Env env) {
        Map<String, String> settings = new TreeMap<>();
        env.get(FILE_VARIABLE).map(Path::of).ifPresent(file -> settings.putAll(read(file)));
        for (String name : env.names()) {
            if (name.startsWith(PREFIX) && !NOT_SETTINGS.contains(name)) {
                env.get(name).ifPresent(value -> settings.put(settingName(name), value));
            }
        }
        for (String name : settings.keySet()) {
            String owned = OWNED.get(unprefixed(name));
            if (owned != null) {
                throw new Env.ConfigException("the Kafka client setting " + name + " is Tally's own and cannot be set"
                        + " in " + FILE_VARIABLE + " or " + PREFIX + "*: " + owned);
            }
        }
        return new KafkaClientConfig(settings);
    }

    /** {@code TALLY_KAFKA_SASL_JAAS_CONFIG} → {@code sasl.jaas.config}; {@code __} → {@code _}, {@code ___} → {@code -}. */
    static String settingName(String variable) {
        return variable.substring(PREFIX.length()).toLowerCase(Locale.ROOT)
                .replace("___", "\u0001").replace("__", "\u0002").replace('_', '.')
                .replace('\u0001', '-').replace('\u0002', '_');
    }

    private static String unprefixed(String name) {
        for (String prefix : CLIENT_PREFIXES) {
            if (name.startsWith(prefix)) {
                return name.substring(prefix.length());
            }
        }
        return name;
    }

    private static Map<String, String> read(Path file) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new Env.ConfigException(FILE_VARIABLE + "=" + file + " cannot be read: " + e.getClass().getSimpleName());
        } catch (IllegalArgumentException e) {
            throw new Env.ConfigException(FILE_VARIABLE + "=" + file + " is not a properties file (a malformed \\uXXXX escape)");
        }
        Map<String, String> settings = new TreeMap<>();
        p.stringPropertyNames().forEach(name -> settings.put(name.strip(), p.getProperty(name).strip()));
        return settings;
    }

    /** Puts every setting into {@code props}, over what is there (Tally's own settings are never among them). */
    public Properties applyTo(Properties props) {
        props.putAll(settings);
        return props;
    }

    /** The names of the settings, without their values. */
    public Set<String> names() {
        return settings.keySet();
    }

    public boolean isEmpty() {
        return settings.isEmpty();
    }

    /** The value of one setting, for the code that must read it (e.g. whether the cluster speaks TLS). */
    public java.util.Optional<String> get(String name) {
        return java.util.Optional.ofNullable(settings.get(name));
    }

    @Override
    public String toString() {
        return "Kafka client settings " + names();
    }
}
