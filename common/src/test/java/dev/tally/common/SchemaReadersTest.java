package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.SchemaReader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The rule table of {@link SchemaReaders}: who may refuse an append, and for how long. */
class SchemaReadersTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final String COMMANDS = "tally.vote-commands";

    private static SchemaReader reader(String instance, String topic, List<Long> fingerprints, Duration ago) {
        return new SchemaReader("tally-vote-processor", instance, topic, fingerprints, NOW.minus(ago));
    }

    @Test
    void withNoReaderAnythingMayBeAppended() {
        assertThat(SchemaReaders.unable(List.of(), COMMANDS, 7L, NOW)).isEmpty();
    }

    @Test
    void everyLiveReaderMustListTheWritersFingerprint() {
        SchemaReader upgraded = reader("a", COMMANDS, List.of(5L, 7L), Duration.ofSeconds(10));
        SchemaReader older = reader("b", COMMANDS, List.of(5L), Duration.ofSeconds(30));
        assertThat(SchemaReaders.unable(List.of(upgraded), COMMANDS, 7L, NOW)).isEmpty();
        assertThat(SchemaReaders.unable(List.of(upgraded, older), COMMANDS, 7L, NOW)).contains(older);
        assertThat(SchemaReaders.unable(List.of(upgraded, older), COMMANDS, 5L, NOW)).as("the old format both read").isEmpty();
    }

    @Test
    void aReaderNotHeardFromWithinFiveMinutesNoLongerCounts() {
        SchemaReader gone = reader("b", COMMANDS, List.of(5L), SchemaReaders.LIVE.plusSeconds(1));
        SchemaReader justLive = reader("c", COMMANDS, List.of(5L), SchemaReaders.LIVE.minusSeconds(1));
        assertThat(SchemaReaders.unable(List.of(gone), COMMANDS, 7L, NOW)).isEmpty();
        assertThat(SchemaReaders.unable(List.of(justLive), COMMANDS, 7L, NOW)).contains(justLive);
        assertThat(SchemaReaders.REFRESH).as("a running reader refreshes well within that").isLessThan(SchemaReaders.LIVE.dividedBy(2));
    }

    @Test
    void aReaderOfAnotherTopicDoesNotCount() {
        SchemaReader other = reader("a", "tally.count-deltas", List.of(1L), Duration.ZERO);
        assertThat(SchemaReaders.unable(List.of(other), COMMANDS, 7L, NOW)).isEmpty();
    }

    @Test
    void theFollowedTopicAddsReplacesAndForgetsReadersAndNamesTheOneThatCannotRead() {
        SchemaReaders readers = new SchemaReaders(Clock.fixed(NOW, ZoneOffset.UTC));
        String key = SchemaReaders.key("tally-vote-processor", "b", COMMANDS);
        readers.accept(new ConsumerRecord<>("tally.schema-readers", 0, 0, key,
                reader("b", COMMANDS, List.of(5L), Duration.ofSeconds(42))));
        assertThat(readers.cannotRead(COMMANDS, 7L)).hasValueSatisfying(why -> assertThat(why)
                .contains("tally-vote-processor instance b", "42 s ago", COMMANDS, "upgrade it first"));
        readers.accept(new ConsumerRecord<>("tally.schema-readers", 0, 1, key,
                reader("b", COMMANDS, List.of(5L, 7L), Duration.ZERO)));
        assertThat(readers.cannotRead(COMMANDS, 7L)).as("upgraded in place").isEmpty();
        readers.accept(new ConsumerRecord<>("tally.schema-readers", 0, 2, key,
                reader("b", COMMANDS, List.of(5L), Duration.ZERO)));
        readers.accept(new ConsumerRecord<String, SchemaReader>("tally.schema-readers", 0, 3, key, null));
        assertThat(readers.cannotRead(COMMANDS, 7L)).as("a tombstone removes it").isEmpty();
    }
}
