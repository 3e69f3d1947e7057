package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.schema.CountDelta;
import dev.tally.schema.ItemCounts;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {
    private final AvroSerde<CountDelta> serde = AvroSerde.of(CountDelta.class);

    private static CountDelta delta() {
        return CountDelta.newBuilder().setItemType("post").setItemId("1").setUpvotes(3).setDownvotes(-1)
                .setReactions(Map.of("like", 2L)).setSourcePartition(4).setThroughOffset(99).build();
    }

    @Test
    void shouldWriteSingleObjectEncodingWithSchemaFingerprint() {
        byte[] bytes = serde.serialize("tally.count-deltas", delta());

        assertThat(bytes[0]).isEqualTo((byte) 0xC3);
        assertThat(bytes[1]).isEqualTo((byte) 0x01);
        long fingerprint = SchemaNormalization.parsingFingerprint64(CountDelta.getClassSchema());
        long written = 0;
        for (int i = 9; i >= 2; i--) {
            written = (written << 8) | (bytes[i] & 0xFF); // little-endian
        }
        assertThat(written).isEqualTo(fingerprint);
        assertThat(AvroSerde.headerFingerprint(bytes)).hasValue(fingerprint);
        assertThat(AvroSerde.headerFingerprint("not avro at all".getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void shouldRoundTrip() {
        assertThat(serde.deserialize("t", serde.serialize("t", delta()))).isEqualTo(delta());
    }

    @Test
    void shouldPassNullsThroughForTombstones() {
        assertThat(serde.serialize("t", null)).isNull();
        assertThat(serde.deserialize("t", null)).isNull();
    }

    @Test
    void shouldRefuseBytesThatAreNotSingleObjectEncoded() {
        assertThatThrownBy(() -> serde.deserialize("t", new byte[] {1, 2, 3, 4}))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("CountDelta");
    }

    /** The serde's own coders write exactly what Avro's single-object encoder does, and read what it writes. */
    @Test
    void shouldWriteAndReadTheSameBytesAsAvrosMessageCoders() throws Exception {
        ItemCounts counts = ItemCounts.newBuilder().setItemType("post").setItemId("i42").setUpvotes(12).setDownvotes(3)
                .setWeightedUp(11.5).setWeightedDown(3).setReactions(Map.of("like", 2L, "laugh", 1L))
                .setWatermarks(Map.of("0", 1234L, "3", 99L)).setFirstVoteAt(Instant.ofEpochMilli(1_700_000_000_000L))
                .setUpdatedAt(Instant.ofEpochMilli(1_700_000_123_456L)).build();
        AvroSerde<ItemCounts> ours = AvroSerde.of(ItemCounts.class);
        SpecificData model = SpecificData.getForClass(ItemCounts.class);
        ByteBuffer theirs = new BinaryMessageEncoder<ItemCounts>(model, ItemCounts.getClassSchema()).encode(counts);
        byte[] theirBytes = new byte[theirs.remaining()];
        theirs.get(theirBytes);

        assertThat(ours.encode(counts)).isEqualTo(theirBytes);
        assertThat(ours.decode(theirBytes)).isEqualTo(counts);
        assertThat(new BinaryMessageDecoder<ItemCounts>(model, ItemCounts.getClassSchema()).decode(ours.encode(counts)))
                .isEqualTo(counts);
    }

    @Test
    void shouldRefuseAFingerprintNoRecordedSchemaHas() {
        byte[] bytes = serde.encode(delta());
        bytes[5] ^= 0x5A; // same header, another fingerprint

        assertThatThrownBy(() -> serde.decode(bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("CountDelta")
                .hasMessageContaining("fingerprint");
    }

    @Test
    void shouldRefuseATruncatedBody() {
        byte[] whole = serde.encode(delta());
        byte[] cut = Arrays.copyOf(whole, whole.length - 3);

        assertThatThrownBy(() -> serde.decode(cut)).isInstanceOf(SerializationException.class)
                .hasMessageContaining("CountDelta (" + cut.length + " bytes)");
        assertThat(serde.decode(whole)).isEqualTo(delta()); // the thread's decoder is not left broken
    }

    /** A record larger than a thread keeps a buffer for (a ranking artifact) codes whole, and the next one after it too. */
    @Test
    void shouldCodeARecordLargerThanTheKeptBuffer() {
        Map<String, Long> reactions = new HashMap<>();
        for (int i = 0; i < 150_000; i++) {
            reactions.put("reaction-" + i, (long) i);
        }
        CountDelta big = CountDelta.newBuilder(delta()).setReactions(reactions).build();

        byte[] bytes = serde.encode(big);

        assertThat(bytes.length).isGreaterThan(1 << 20);
        assertThat(serde.decode(bytes)).isEqualTo(big);
        assertThat(serde.decode(serde.encode(delta()))).isEqualTo(delta());
    }

    /** Each thread has its own buffer and coders: records coded at once on several threads come out whole. */
    @Test
    void shouldCodeOnManyThreadsAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = IntStream.range(0, 8).mapToObj(t -> pool.submit(() -> {
                for (int i = 0; i < 20_000; i++) {
                    CountDelta d = CountDelta.newBuilder(delta()).setItemId(t + "-" + i).setUpvotes(i).build();
                    if (!serde.decode(serde.encode(d)).equals(d)) {
                        return false;
                    }
                }
                return true;
            })).toList();
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void everyRecordedSchemaParsesAndIsKnownToTheStore() {
        SchemaHistory.all().values().forEach(versions -> versions.forEach(schema ->
                assertThat(SchemaHistory.store().findByFingerprint(SchemaNormalization.parsingFingerprint64(schema)))
                        .isEqualTo(schema)));
    }

    @Test
    void topicCatalogueNamesFollowTheContract() {
        assertThat(Topics.ALL).extracting(Topic::name).contains("tally.vote-commands", "tally.vote-events",
                "tally.item-counts", "tally.quarantine");
        assertThat(Topics.ITEM_COUNTS.compacted()).isTrue();
        assertThat(Topics.byName("tally.vote-events")).isSameAs(Topics.VOTE_EVENTS);
    }

    @Test
    void everyTopicConstantIsInTheCatalogueSoItGetsCreated() throws Exception {
        for (var field : Topics.class.getFields()) {
            if (field.getType() == Topic.class) {
                assertThat(Topics.ALL).as(field.getName()).contains((Topic<?, ?>) field.get(null));
            }
        }
    }
}
