package dev.tally.projector.ranking;

import static dev.tally.projector.ranking.RankingFixtures.NOW;
import static dev.tally.projector.ranking.RankingFixtures.counts;
import static dev.tally.projector.ranking.RankingFixtures.fillers;
import static dev.tally.projector.ranking.RankingFixtures.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.schema.RankingArtifact;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RankingFilesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void writesTheContractShapeToTypeSlashTopJson() throws IOException {
        RankingArtifact artifact = Rankings.rank("post", with(fillers(), counts("post", "steady", 900, 100)), NOW);
        RankingFiles files = new RankingFiles(dir);
        Path written = files.write(artifact);

        assertThat(files.root()).isEqualTo(dir);
        assertThat(written).isEqualTo(dir.resolve("post").resolve("top.json"));
        JsonNode json = JSON.readTree(written.toFile());
        assertThat(fieldNames(json)).containsExactly("schemaVersion", "generatedAt", "status", "items");
        assertThat(json.get("schemaVersion").isInt()).isTrue();
        assertThat(json.get("schemaVersion").asInt()).isEqualTo(1);
        assertThat(Instant.parse(json.get("generatedAt").asText())).isEqualTo(NOW);
        assertThat(json.get("generatedAt").asText()).isEqualTo("2026-05-01T12:00:00.123Z");
        assertThat(json.get("status").asText()).isEqualTo("ready");
        assertThat(json.get("items")).hasSize(6);

        JsonNode first = json.get("items").get(0);
        assertThat(fieldNames(first)).containsExactly("rank", "item_type", "item_id", "up", "down", "wilson");
        assertThat(first.get("rank").asInt()).isEqualTo(1);
        assertThat(first.get("item_type").asText()).isEqualTo("post");
        assertThat(first.get("item_id").asText()).isEqualTo("steady");
        assertThat(first.get("up").asLong()).isEqualTo(900);
        assertThat(first.get("down").asLong()).isEqualTo(100);
        assertThat(first.get("wilson").isDouble()).isTrue();
        assertThat(first.get("wilson").asDouble()).isEqualTo(0.879848);
    }

    @Test
    void insufficientDataIsAnEmptyList() throws IOException {
        Path written = new RankingFiles(dir).write(Rankings.insufficientData("video", NOW));

        assertThat(Files.readString(written)).isEqualTo(
                "{\"schemaVersion\":1,\"generatedAt\":\"2026-05-01T12:00:00.123Z\",\"status\":\"insufficient-data\",\"items\":[]}");
    }

    @Test
    void theFileAndToJsonAreTheSameDocument() throws IOException {
        RankingArtifact artifact = Rankings.rank("post", fillers(), NOW);
        Path written = new RankingFiles(dir).write(artifact);

        assertThat(Files.readString(written)).isEqualTo(JSON.writeValueAsString(RankingJson.toJson(artifact)));
    }

    @Test
    void aNewGenerationReplacesTheFileAndLeavesNoTemporaryFiles() throws IOException {
        RankingFiles files = new RankingFiles(dir);
        files.write(Rankings.insufficientData("post", NOW));
        Path written = files.write(Rankings.rank("post", fillers(), NOW.plusSeconds(10)));

        assertThat(JSON.readTree(written.toFile()).get("status").asText()).isEqualTo("ready");
        try (Stream<Path> left = Files.list(dir.resolve("post"))) {
            assertThat(left).containsExactly(written);
        }
    }

    @Test
    void refusesATypeThatWouldEscapeTheDirectory() {
        RankingFiles files = new RankingFiles(dir.resolve("rankings")); // a file that escaped stays in this test's directory
        assertThatThrownBy(() -> files.write(Rankings.insufficientData("../escape", NOW)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("../escape");
        assertThat(dir.resolve("escape")).doesNotExist();
    }
}
