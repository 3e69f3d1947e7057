package dev.tally.webhooks;

import dev.tally.schema.WebhookSubscription;
import java.time.Instant;
import java.util.List;

/** A subscription for unit tests: active, every item, generation 1; each test sets what it is about. */
final class TestSubscriptions {
    private TestSubscriptions() {}

    static WebhookSubscription.Builder active() {
        Instant now = Instant.now();
        return WebhookSubscription.newBuilder().setId("wh_test").setUrl("https://example.com/hook").setItemTypes(List.of())
                .setItems(List.of()).setCoalesceMs(1000).setStart("now").setStatus("active").setDisabledReason(null)
                .setSecretGeneration(1).setPreviousSecretUntil(null).setRedeliverSince(null)
                .setRedeliverRequest(0).setCreatedAt(now).setUpdatedAt(now);
    }
}
