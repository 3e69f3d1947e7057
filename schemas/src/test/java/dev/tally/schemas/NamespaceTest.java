package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NamespaceTest {

    @Test
    void theDefaultNamespaceNamesTopicsAsTheCatalogueDoes() {
        assertThat(Namespace.DEFAULT.topics()).extracting(Topic::name)
                .containsExactlyElementsOf(Topics.ALL.stream().map(Topic::name).toList());
        assertThat(Namespace.DEFAULT.id("vote-processor")).isEqualTo("tally-vote-processor");
    }

    @Test
    void anotherNamespacePrefixesEveryTopicAndIdAndKeepsTheSerdes() {
        Namespace staging = new Namespace("staging");

        Topic<String, ?> events = staging.topic(Topics.VOTE_EVENTS);

        assertThat(events.name()).isEqualTo("staging.vote-events");
        assertThat(events.valueSerde()).isSameAs(Topics.VOTE_EVENTS.valueSerde());
        assertThat(staging.topic(events).name()).as("naming twice changes nothing").isEqualTo("staging.vote-events");
        assertThat(staging.topics()).allSatisfy(t -> assertThat(t.name()).startsWith("staging."));
        assertThat(staging.id("vote-processor")).isEqualTo("staging-vote-processor");
        assertThat(Topics.byName("staging.vote-events")).isSameAs(Topics.VOTE_EVENTS);
    }

    @Test
    void noNamespacesPrefixesCanMatchAnothersNames() {
        for (String bad : new String[] {"Tally", "tally-staging", "tally.staging", "", "1tally", "a".repeat(33)}) {
            assertThatThrownBy(() -> new Namespace(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(new Namespace("tally_staging").idPrefix()).doesNotStartWith(Namespace.DEFAULT.idPrefix());
        assertThat(new Namespace("tally_staging").topicPrefix()).doesNotStartWith(Namespace.DEFAULT.topicPrefix());
    }
}
