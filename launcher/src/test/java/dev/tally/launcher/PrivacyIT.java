package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

/**
 * Traffic through a trusted proxy with a distinctive client address, a distinctive account id and an
 * anonymous cookie: afterwards none of them is anywhere — not in any topic or changelog (decompressed
 * record bytes), not in any file of the data directory, not in any log line at INFO or above.
 */
class PrivacyIT {
    private static final String ADDRESS = "203.0.113.77";
    private final String canaryUser = "canary-" + UUID.randomUUID();

    @Test
    void noRawAddressVoterIdOrCookieIsStoredOrLogged() throws Exception {
        List<String> logged = new ArrayList<>();
        LoggerContext logs = (LoggerContext) LogManager.getContext(false);
        var appender = new AbstractAppender("privacy-capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                logged.add(event.getMessage().getFormattedMessage() + " " + event.getThrown());
            }
        };
        appender.start();
        logs.getConfiguration().getRootLogger().addAppender(appender, Level.INFO, null);
        logs.getConfiguration().getRootLogger().setLevel(Level.INFO);
        logs.updateLoggers();
        Path dataDir = SharedBroker.dataDir("privacy");
        TallyNode node = WalkingSkeletonIT.startAll(WalkingSkeletonIT.env(dataDir));
        String cookie;
        String item = "privacy-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            TallyClient client = new TallyClient(node.httpPort());
            var named = client.send(request(node, item).header("X-Tally-User", canaryUser));
            assertThat(named.status()).isEqualTo(200);
            var anonymous = client.send(request(node, item));
            assertThat(anonymous.status()).isEqualTo(200);
            String setCookie = anonymous.header("Set-Cookie");
            cookie = setCookie.substring("tally_vid=".length(), setCookie.indexOf(';'));
            var again = client.send(request(node, item).header("Cookie", "tally_vid=" + cookie));
            assertThat(again.status()).isEqualTo(200);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline
                    && client.get(null, "/v1/votes/post/" + item).body().get("upvotes").asLong() < 1) {
                Thread.sleep(100);
            }
        } finally {
            node.close(); // flushes the stores to disk
            logs.getConfiguration().getRootLogger().removeAppender("privacy-capture");
            logs.getConfiguration().getRootLogger().setLevel(Level.WARN);
            logs.updateLoggers();
        }
        String voterId = cookie.substring(0, cookie.indexOf('.'));
        List<String> secrets = List.of(ADDRESS, "203.0.113.", canaryUser, cookie, voterId);

        for (String found : recordsMentioning(node, secrets)) {
            throw new AssertionError("a topic holds a raw identity: " + found);
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                for (String s : secrets) {
                    assertThat(content).as("%s holds a raw identity", f).doesNotContain(s);
                }
            }
        }
        assertThat(logged).as("log lines were captured").isNotEmpty();
        for (String line : logged) {
            for (String s : secrets) {
                assertThat(line).as("a log line holds a raw identity").doesNotContain(s);
            }
        }
    }

    private static HttpRequest.Builder request(TallyNode node, String item) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/v1/votes"))
                .header("Content-Type", "application/json").header("X-Forwarded-For", ADDRESS)
                .POST(HttpRequest.BodyPublishers.ofString("{\"item_type\":\"post\",\"item_id\":\"" + item
                        + "\",\"vote_value\":1,\"mode\":\"set\"}"));
    }

    /** Every record of every topic on the broker (Tally's and the Streams changelogs), decompressed. */
    private static List<String> recordsMentioning(TallyNode node, List<String> secrets) throws Exception {
        List<String> found = new ArrayList<>();
        var props = node.runtime().kafka().clientProps("privacy-scan");
        try (Admin admin = Admin.create(props);
             var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (String topic : admin.listTopics().names().get()) {
                consumer.partitionsFor(topic).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    StringBuilder raw = new StringBuilder();
                    if (r.key() != null) {
                        raw.append(new String(r.key(), StandardCharsets.ISO_8859_1));
                    }
                    if (r.value() != null) {
                        raw.append(new String(r.value(), StandardCharsets.ISO_8859_1));
                    }
                    for (Header h : r.headers()) {
                        raw.append(h.key()).append(h.value() == null ? "" : new String(h.value(), StandardCharsets.ISO_8859_1));
                    }
                    for (String s : secrets) {
                        if (raw.indexOf(s) >= 0) {
                            found.add(r.topic() + "-" + r.partition() + "@" + r.offset() + " contains " + s);
                        }
                    }
                }
            }
        }
        return found;
    }
}
