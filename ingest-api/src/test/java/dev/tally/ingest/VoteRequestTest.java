package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.schema.CommandAction;
import dev.tally.schema.VoteMode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VoteRequestTest {

    private static VoteRequest parse(String json) {
        return VoteRequest.parse(json.getBytes(StandardCharsets.UTF_8), 1);
    }

    @Test
    void shouldParseAVoteWithDefaults() {
        VoteRequest r = parse("{\"item_type\":\"post\",\"item_id\":\"a-1\",\"vote_value\":-1}");

        assertThat(r).isEqualTo(new VoteRequest("post", "a-1", CommandAction.VOTE, -1, null, VoteMode.TOGGLE, 1));
    }

    @Test
    void shouldParseAReactionInSetModeAndANullReactionAsClear() {
        assertThat(parse("{\"item_type\":\"post\",\"item_id\":\"1\",\"reaction\":\"love\",\"mode\":\"set\"}"))
                .isEqualTo(new VoteRequest("post", "1", CommandAction.REACTION, 0, "love", VoteMode.SET, 1));
        assertThat(parse("{\"item_type\":\"post\",\"item_id\":\"1\",\"reaction\":null}").reaction()).isNull();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1.0}                | vote_value",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":\"1\"}              | vote_value",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":2}                  | vote_value",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":true}               | vote_value",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":99999999999999}     | vote_value",
            "{\"item_type\":\"post\",\"item_id\":\"1\"}                                   | exactly one",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"reaction\":\"like\"} | exactly one",
            "{\"item_type\":\"Post\",\"item_id\":\"1\",\"vote_value\":1}                  | item_type",
            "{\"item_id\":\"1\",\"vote_value\":1}                                         | item_type",
            "{\"item_type\":\"post\",\"item_id\":\"a b\",\"vote_value\":1}                | item_id",
            "{\"item_type\":\"post\",\"item_id\":1,\"vote_value\":1}                      | item_id",
            "{\"item_type\":\"post\",\"item_id\":\"\",\"vote_value\":1}                   | item_id",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"mode\":\"flip\"} | mode",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"extra\":1}      | unknown field 'extra'",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"vote_value\":-1} | Duplicate field",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"reaction\":\"LOVE\"}             | reaction",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"reaction\":5}                    | reaction",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"catalog_version\":0} | catalog_version",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"catalog_version\":1.5} | catalog_version",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"catalog_version\":\"2\"} | catalog_version",
            "{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"catalog_version\":2147483648} | catalog_version",
            "[1,2]                                                                         | JSON object",
            "null                                                                          | JSON object",
            "{\"item_type\":\"post\"                                                       | not valid JSON",
    })
    void shouldRefuseWithASpecificDetail(String body, String detail) {
        assertThatThrownBy(() -> parse(body))
                .isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.status()).isEqualTo(400))
                .hasMessageContaining(detail);
    }

    @Test
    void shouldAcceptTheLongestValidIds() {
        String id = "a".repeat(64);
        String type = "t" + "x".repeat(31);
        assertThat(parse("{\"item_type\":\"" + type + "\",\"item_id\":\"" + id + "\",\"vote_value\":0}").itemId())
                .isEqualTo(id);
        assertThatThrownBy(() -> parse("{\"item_type\":\"post\",\"item_id\":\"" + id + "a\",\"vote_value\":0}"))
                .hasMessageContaining("item_id");
    }

    @Test
    void shouldTakeACatalogueVersionFromOneUpAndEchoAtMostFortyCharacters() {
        assertThat(parse("{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"catalog_version\":1}").catalogVersion())
                .isEqualTo(1);
        assertThat(VoteRequest.printable("x".repeat(40))).isEqualTo("x".repeat(40));
        assertThat(VoteRequest.printable("x".repeat(41))).isEqualTo("x".repeat(40) + "…");
    }

    @Test
    void shouldHashAReRequestByItsMeaningNotItsBytes() {
        String hash = parse("{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1}").canonicalHash();
        assertThat(hash).matches("[0-9a-f]{64}");
        assertThat(parse("{ \"vote_value\": 1, \"item_id\": \"1\", \"item_type\": \"post\" }").canonicalHash()).isEqualTo(hash);
        assertThat(parse("{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":-1}").canonicalHash()).isNotEqualTo(hash);
        assertThat(parse("{\"item_type\":\"post\",\"item_id\":\"1\",\"vote_value\":1,\"mode\":\"set\"}").canonicalHash())
                .isNotEqualTo(hash);
    }

    @Test
    void shouldNotEchoControlCharactersOfAnUnknownKey() {
        assertThatThrownBy(() -> parse("{\"\\u0007bell\":1}")).hasMessageContaining("'?bell'");
    }
}
