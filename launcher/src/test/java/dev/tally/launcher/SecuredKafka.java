package dev.tally.launcher;

import dev.tally.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * A Kafka node secured as managed clusters are: a real KRaft broker in this JVM whose client listener speaks
 * SASL_SSL (SCRAM-SHA-512 over TLS) or TLS with client certificates, behind the StandardAuthorizer with
 * {@code allow.everyone.if.no.acl.found=false}. Certificates come from a test CA made with the JDK's keytool; every
 * password is random and distinctive, so a test can look for it in logs.
 */
final class SecuredKafka implements AutoCloseable {
    /** A principal's client settings, as a Kafka tool's {@code --command-config} file, and its secrets. */
    record Client(String principal, Path properties, List<String> secrets) {
    }

    private final EmbeddedKafka kafka;
    private final Path dir;
    private final Client admin;
    private final Map<String, Client> clients;

    private SecuredKafka(EmbeddedKafka kafka, Path dir, Client admin, Map<String, Client> clients) {
        this.kafka = kafka;
        this.dir = dir;
        this.admin = admin;
        this.clients = clients;
    }

    /** SCRAM-SHA-512 over TLS, with the users {@code admin} (a super user) and each of {@code users}. */
    static SecuredKafka saslSsl(Path dir, String... users) {
        Certificates certs = Certificates.make(dir.resolve("tls"), "broker");
        Map<String, String> passwords = new LinkedHashMap<>();
        passwords.put("admin", "scram-admin-" + UUID.randomUUID());
        for (String user : users) {
            passwords.put(user, "scram-" + user + "-" + UUID.randomUUID());
        }
        Map<String, String> broker = new LinkedHashMap<>(certs.brokerSettings("broker"));
        broker.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        broker.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        broker.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", jaas("admin", passwords.get("admin")));
        broker.putAll(authorizer("User:admin;User:ANONYMOUS"));
        List<String> format = new ArrayList<>();
        passwords.forEach((user, pw) -> format.addAll(List.of("--add-scram", "SCRAM-SHA-512=[name=" + user + ",password=" + pw + "]")));
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, new EmbeddedKafka.Security("SASL_SSL", broker, format));
        Map<String, Client> clients = new LinkedHashMap<>();
        passwords.forEach((user, pw) -> {
            Map<String, String> p = new LinkedHashMap<>(certs.trustSettings());
            p.put("security.protocol", "SASL_SSL");
            p.put("sasl.mechanism", "SCRAM-SHA-512");
            p.put("sasl.jaas.config", jaas(user, pw));
            clients.put(user, client(dir, "User:" + user, p, List.of(pw, certs.password())));
        });
        return new SecuredKafka(kafka, dir, clients.get("admin"), clients);
    }

    /** TLS with client certificates: the principal is the certificate's CN; {@code admin} is a super user. */
    static SecuredKafka mutualTls(Path dir, String... users) {
        List<String> names = new ArrayList<>(List.of("admin"));
        names.addAll(List.of(users));
        List<String> subjects = new ArrayList<>(List.of("broker"));
        subjects.addAll(names);
        Certificates certs = Certificates.make(dir.resolve("tls"), subjects.toArray(String[]::new));
        Map<String, String> broker = new LinkedHashMap<>(certs.brokerSettings("broker"));
        broker.put("ssl.client.auth", "required");
        broker.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]+)$/$1/,DEFAULT");
        broker.putAll(authorizer("User:broker;User:admin;User:ANONYMOUS"));
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, new EmbeddedKafka.Security("SSL", broker, List.of()));
        Map<String, Client> clients = new LinkedHashMap<>();
        for (String user : names) {
            Map<String, String> p = new LinkedHashMap<>(certs.trustSettings());
            p.put("security.protocol", "SSL");
            p.putAll(certs.keySettings(user));
            clients.put(user, client(dir, "User:" + user, p, List.of(certs.password())));
        }
        return new SecuredKafka(kafka, dir, clients.get("admin"), clients);
    }

    String bootstrap() {
        return kafka.bootstrap();
    }

    Client admin() {
        return admin;
    }

    Client client(String user) {
        return clients.get(user);
    }

    /** An admin client as the super user. */
    Admin adminClient() {
        Properties p = load(admin.properties());
        p.put("bootstrap.servers", bootstrap());
        return Admin.create(p);
    }

    @Override
    public void close() {
        kafka.close();
    }

    private static Map<String, String> authorizer(String superUsers) {
        return Map.of("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found", "false", "super.users", superUsers);
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    private static Client client(Path dir, String principal, Map<String, String> settings, List<String> secrets) {
        Path file = dir.resolve(principal.substring(principal.indexOf(':') + 1) + ".properties");
        StringBuilder text = new StringBuilder();
        settings.forEach((k, v) -> text.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Client(principal, file, secrets);
    }

    static Properties load(Path file) {
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** A test CA and certificates it signed for 127.0.0.1, in PKCS12 stores, made with the JDK's keytool. */
    record Certificates(Path dir, String password) {
        static Certificates make(Path dir, String... subjects) {
            Certificates c = new Certificates(dir, "tls-" + UUID.randomUUID());
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            c.keytool("-genkeypair", "-alias", "ca", "-dname", "CN=Tally Test CA", "-keyalg", "RSA", "-keysize", "2048",
                    "-validity", "2", "-ext", "bc:c", "-keystore", "ca.p12", "-storetype", "PKCS12");
            c.keytool("-exportcert", "-alias", "ca", "-keystore", "ca.p12", "-rfc", "-file", "ca.pem");
            c.keytool("-importcert", "-alias", "ca", "-file", "ca.pem", "-keystore", "truststore.p12", "-storetype",
                    "PKCS12", "-noprompt");
            for (String subject : subjects) {
                String store = subject + ".p12";
                c.keytool("-genkeypair", "-alias", subject, "-dname", "CN=" + subject, "-keyalg", "RSA", "-keysize", "2048",
                        "-validity", "2", "-keystore", store, "-storetype", "PKCS12");
                c.keytool("-certreq", "-alias", subject, "-keystore", store, "-file", subject + ".csr");
                c.keytool("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile", subject + ".csr", "-outfile",
                        subject + ".pem", "-rfc", "-validity", "2", "-ext", "SAN=ip:127.0.0.1");
                c.keytool("-importcert", "-alias", "ca", "-file", "ca.pem", "-keystore", store, "-noprompt");
                c.keytool("-importcert", "-alias", subject, "-file", subject + ".pem", "-keystore", store, "-noprompt");
            }
            return c;
        }

        Map<String, String> trustSettings() {
            return Map.of("ssl.truststore.location", dir.resolve("truststore.p12").toString(),
                    "ssl.truststore.type", "PKCS12", "ssl.truststore.password", password);
        }

        Map<String, String> keySettings(String subject) {
            return Map.of("ssl.keystore.location", dir.resolve(subject + ".p12").toString(), "ssl.keystore.type", "PKCS12",
                    "ssl.keystore.password", password, "ssl.key.password", password);
        }

        Map<String, String> brokerSettings(String subject) {
            Map<String, String> p = new LinkedHashMap<>(trustSettings());
            p.putAll(keySettings(subject));
            return p;
        }

        private void keytool(String... args) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
            command.addAll(List.of(args));
            command.addAll(List.of("-storepass", password));
            if (args[0].equals("-genkeypair")) {
                command.addAll(List.of("-keypass", password));
            }
            try {
                Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException("keytool " + args[0] + " failed: " + out);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
