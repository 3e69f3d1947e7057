package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.schema.SchemaReader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
        Map<String, SchemaReader> topic = new HashMap<>(); // what the compacted topic holds now
        SchemaReaders readers = new SchemaReaders(new MapView(topic), Clock.fixed(NOW, ZoneOffset.UTC));
        String key = SchemaReaders.key("tally-vote-processor", "b", COMMANDS);
        topic.put(key, reader("b", COMMANDS, List.of(5L), Duration.ofSeconds(42)));
        assertThat(readers.cannotRead(COMMANDS, 7L)).hasValueSatisfying(why -> assertThat(why)
                .contains("tally-vote-processor instance b", "42 s ago", COMMANDS, "upgrade it first"));
        topic.put(key, reader("b", COMMANDS, List.of(5L, 7L), Duration.ZERO));
        assertThat(readers.cannotRead(COMMANDS, 7L)).as("upgraded in place").isEmpty();
        topic.put(key, reader("b", COMMANDS, List.of(5L), Duration.ZERO));
        topic.remove(key);
        assertThat(readers.cannotRead(COMMANDS, 7L)).as("a tombstone removes it").isEmpty();
    }

    /** The view over a map the test writes, as CompactedTopicView is over the topic. */
    private record MapView(Map<String, SchemaReader> values) implements KeyedView<SchemaReader> {
        @Override
        public Optional<SchemaReader> get(String key) {
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public Map<String, SchemaReader> snapshot() {
            return Map.copyOf(values);
        }

        @Override
        public boolean caughtUp() {
            return true;
        }

        @Override
        public void applyLocal(String key, SchemaReader value) {
            values.put(key, value);
        }
    }
}
