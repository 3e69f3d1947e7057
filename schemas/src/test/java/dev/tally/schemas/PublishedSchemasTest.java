package dev.tally.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code schemas/published/}: one self-contained {@code .avsc} per record in {@code src/main/avro/},
 * every type it uses defined inline, so a consumer decodes a topic with that one file and standard
 * tools. Each file must parse on its own, carry the fingerprint that the topic records' single-object
 * header holds, decode a record as the topic serde writes it, and equal what the sources give: edit a
 * schema under {@code src/main/avro/} and regenerate with
 * {@code mvn -pl schemas test -Dtest=PublishedSchemasTest -Dtally.publish=true}.
 */
class PublishedSchemasTest {
    private static final Path SOURCES = Path.of("src/main/avro");
    private static final Path PUBLISHED = Path.of("published");
    /** Parsed first, in this order: the types other files refer to (as the avro-maven-plugin imports them). */
    private static final List<String> IMPORTS = List.of("VoterItemState", "VoterItem", "VoteCommand", "VoteEvent",
            "VoteOutcome", "VoteCommandBatch", "VoteOutcomeBatch");

    /** Every record of the sources, by simple name, each rendered with the types it uses inline. */
    static Map<String, String> rendered() throws IOException {
        List<String> names = new ArrayList<>(IMPORTS);
        try (Stream<Path> files = Files.list(SOURCES)) {
            files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".avsc")).sorted()
                    .map(f -> f.substring(0, f.length() - ".avsc".length()))
                    .filter(n -> !names.contains(n)).forEach(names::add);
        }
        Schema.Parser parser = new Schema.Parser();
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : names) {
            Schema schema = parser.parse(SOURCES.resolve(name + ".avsc").toFile());
            out.put(name, schema.toString(true) + "\n");
        }
        return out;
    }

    static Stream<String> names() throws IOException {
        return rendered().keySet().stream();
    }

    @Test
    void everySourceSchemaIsPublishedAsItIsNow() throws IOException {
        Map<String, String> rendered = rendered();
        if (Boolean.getBoolean("tally.publish")) {
            Files.createDirectories(PUBLISHED);
            for (var e : rendered.entrySet()) {
                Files.writeString(PUBLISHED.resolve(e.getKey() + ".avsc"), e.getValue());
            }
        }
        for (var e : rendered.entrySet()) {
            Path file = PUBLISHED.resolve(e.getKey() + ".avsc");
            assertThat(file).as("schemas/%s is missing; regenerate (see PublishedSchemasTest)", file).exists();
            assertThat(Files.readString(file)).as("schemas/%s is out of date; regenerate (see PublishedSchemasTest)", file)
                    .isEqualTo(e.getValue());
        }
        try (Stream<Path> files = Files.list(PUBLISHED)) {
            assertThat(files.map(p -> p.getFileName().toString().replace(".avsc", "")))
                    .as("no published file without a source").allMatch(rendered::containsKey);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void eachFileStandsAloneAndDecodesWhatTheTopicSerdeWrites(String name) throws Exception {
        Schema alone = new Schema.Parser().parse(PUBLISHED.resolve(name + ".avsc").toFile()); // a fresh parser: no other file
        @SuppressWarnings("unchecked")
        Class<? extends SpecificRecord> type = (Class<? extends SpecificRecord>) Class.forName("dev.tally.schema." + name);
        Schema generated = SpecificData.get().getSchema(type);
        assertThat(SchemaNormalization.parsingFingerprint64(alone)).as("the fingerprint in the records' header")
                .isEqualTo(SchemaNormalization.parsingFingerprint64(generated));

        GenericRecord sample = SampleData.of(generated);
        ByteBuffer encoded = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), generated).encode(sample);
        byte[] onTheTopic = new byte[encoded.remaining()];
        encoded.get(onTheTopic);
        assertThat(AvroSerde.headerFingerprint(onTheTopic)).hasValue(SchemaNormalization.parsingFingerprint64(alone));

        byte[] body = Arrays.copyOfRange(onTheTopic, 10, onTheTopic.length);
        GenericRecord decoded = new GenericDatumReader<GenericRecord>(alone)
                .read(null, DecoderFactory.get().binaryDecoder(body, null));
        assertThat(GenericData.get().toString(decoded)).isEqualTo(GenericData.get().toString(sample));
        assertThat(AvroSerde.of(type).decode(onTheTopic)).as("and Tally's own serde reads the same bytes").isNotNull();
    }
}
