package dev.tally.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.tally.common.Secrets;
import dev.tally.schema.WebhookSubscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** Signatures as the Standard Webhooks specification defines them, checked by its library and by hand. */
class WebhookSecretsTest {
    private final WebhookSecrets secrets = new WebhookSecrets(Secrets.of("x".repeat(40)));

    @Test
    void aSignatureVerifiesWithTheShownSecretByTheReferenceLibraryAndByHand() throws Exception {
        WebhookSubscription sub = sub(1, null);
        String body = "{\"type\":\"item.counts\",\"seq\":7}";
        long ts = Instant.now().getEpochSecond();
        String header = secrets.signature(sub, "msg_1", ts, body, Instant.now());
        String shown = secrets.shown(sub.getId(), 1);
        assertThat(shown).startsWith("whsec_");
        assertThat(Base64.getDecoder().decode(shown.substring(6))).hasSize(32);
        new Webhook(shown).verify(body, headers("msg_1", ts, header));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(shown.substring(6)), "HmacSHA256"));
        String expected = Base64.getEncoder().encodeToString(mac.doFinal(("msg_1." + ts + "." + body).getBytes(StandardCharsets.UTF_8)));
        assertThat(header).isEqualTo("v1," + expected);
        assertThatThrownBy(() -> new Webhook(shown).verify(body + " ", headers("msg_1", ts, header)))
                .isInstanceOf(WebhookVerificationException.class);
    }

    @Test
    void duringADayAfterARotationBothSecretsSignAndAfterItOnlyTheNewOne() throws Exception {
        Instant now = Instant.now();
        WebhookSubscription rotated = sub(2, now.plus(Duration.ofHours(24)));
        long ts = now.getEpochSecond();
        String header = secrets.signature(rotated, "msg_2", ts, "{}", now);
        assertThat(header.split(" ")).hasSize(2);
        new Webhook(secrets.shown(rotated.getId(), 2)).verify("{}", headers("msg_2", ts, header));
        new Webhook(secrets.shown(rotated.getId(), 1)).verify("{}", headers("msg_2", ts, header));
        String later = secrets.signature(rotated, "msg_2", ts, "{}", now.plus(Duration.ofHours(25)));
        assertThat(later.split(" ")).hasSize(1);
        assertThatThrownBy(() -> new Webhook(secrets.shown(rotated.getId(), 1)).verify("{}", headers("msg_2", ts, later)))
                .isInstanceOf(WebhookVerificationException.class);
    }

    @Test
    void aFirstSecretHasNoPreviousOneToSignWith() {
        Instant now = Instant.now();
        String header = secrets.signature(sub(1, now.plus(Duration.ofHours(1))), "msg_3", now.getEpochSecond(), "{}", now);
        assertThat(header.split(" ")).hasSize(1);
        String rotated = secrets.signature(sub(2, now.plus(Duration.ofHours(1))), "msg_3", now.getEpochSecond(), "{}",
                now.plus(Duration.ofHours(1)));
        assertThat(rotated.split(" ")).as("the day after a rotation ends at its last instant").hasSize(1);
    }

    @Test
    void secretsDifferBySubscriptionGenerationAndMasterSecret() {
        assertThat(secrets.shown("wh_a", 1)).isNotEqualTo(secrets.shown("wh_b", 1)).isNotEqualTo(secrets.shown("wh_a", 2));
        assertThat(new WebhookSecrets(Secrets.of("y".repeat(40))).shown("wh_a", 1)).isNotEqualTo(secrets.shown("wh_a", 1));
        assertThat(secrets.shown("wh_a", 1)).isEqualTo(new WebhookSecrets(Secrets.of("x".repeat(40))).shown("wh_a", 1));
    }

    private static Map<String, List<String>> headers(String id, long ts, String signature) {
        return Map.of("webhook-id", List.of(id), "webhook-timestamp", List.of(Long.toString(ts)), "webhook-signature", List.of(signature));
    }

    private static WebhookSubscription sub(int generation, Instant previousUntil) {
        return TestSubscriptions.active().setSecretGeneration(generation).setPreviousSecretUntil(previousUntil).build();
    }
}
