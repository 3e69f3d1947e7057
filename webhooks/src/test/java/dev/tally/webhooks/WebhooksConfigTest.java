package dev.tally.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.WebhookSubscription;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The receiver URL rule, the settings behind it, which items a subscription is sent and what a delivery says. */
class WebhooksConfigTest {
    private static final WebhooksConfig PROD = WebhooksConfig.from(Env.of(Map.of()), new Profile("prod"));
    private static final WebhooksConfig DEV = WebhooksConfig.from(Env.of(Map.of()), new Profile("dev"));

    @Test
    void productionTakesPublicHttpsUrlsAndKeepsThemAsWritten() {
        assertThat(PROD.checkUrl("https://example.com/hooks?x=1")).isEqualTo(URI.create("https://example.com/hooks?x=1"));
        assertThat(PROD.checkUrl("HTTPS://hooks.example.com:8443/t")).hasHost("hooks.example.com").hasPort(8443);
        assertThat(PROD.checkUrl("https://93.184.216.34/hook")).hasHost("93.184.216.34");
        assertThat(PROD.checkUrl("https://[2606:4700:4700::1111]/hook")).hasHost("[2606:4700:4700::1111]");
        assertThat(PROD.checkUrl("https://" + "a".repeat(WebhooksConfig.MAX_URL_LENGTH - 12) + ".com")).isNotNull();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "''                                 | must be an absolute https URL",
            "'   '                              | must be an absolute https URL",
            "'https://exa mple.com/'            | is not a URL",
            "'/hooks'                           | must be an absolute URL with a host",
            "'mailto:ops@example.com'           | must be an absolute URL with a host",
            "'https://user:pw@example.com/'     | may not carry user information or a fragment",
            "'https://example.com/#top'         | may not carry user information or a fragment",
            "'http://example.com/hooks'         | must be https",
            "'ftp://example.com/hooks'          | must be https",
            "'http://127.0.0.1:9000/'           | must be https",
            "'https://127.0.0.1/'               | 'url': 127.0.0.1",
            "'https://10.1.2.3/'                | 'url': 10.1.2.3",
            "'https://169.254.169.254/latest'   | 'url': 169.254.169.254",
            "'https://[::1]/'                   | 'url': ",
            "'https://[fd00::1]/'               | 'url': ",
            "'https://[::ffff:10.0.0.1]/'       | 'url': ",
            "'https://999.1.1.1/'               | must be an absolute URL with a host"})
    void productionRefusesEachBadUrlSayingWhy(String url, String why) {
        assertThatThrownBy(() -> PROD.checkUrl(url)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(why.trim());
    }

    @Test
    void aUrlOverTheLengthLimitIsRefused() {
        String url = "https://" + "a".repeat(WebhooksConfig.MAX_URL_LENGTH - 11) + ".com";
        assertThat(url).hasSize(WebhooksConfig.MAX_URL_LENGTH + 1);
        assertThatThrownBy(() -> PROD.checkUrl(url)).hasMessageContaining("at most 2000 characters");
        assertThatThrownBy(() -> PROD.checkUrl(null)).hasMessageContaining("at most 2000 characters");
    }

    @Test
    void theDevProfileTakesPlainHttpToLoopbackOnly() {
        assertThat(DEV.dev()).isTrue();
        assertThat(PROD.dev()).isFalse();
        assertThat(DEV.checkUrl("http://127.0.0.1:9000/hook")).hasPort(9000);
        assertThat(DEV.checkUrl("http://localhost:9000/hook")).hasHost("localhost");
        assertThat(DEV.checkUrl("http://[::1]:9000/hook")).hasHost("[::1]");
        assertThat(DEV.checkUrl("https://127.0.0.1/hook")).as("loopback allowed in dev").isNotNull();
        assertThatThrownBy(() -> DEV.checkUrl("http://example.com/hook"))
                .hasMessage("'url' must be https (http only to 127.0.0.1, localhost or [::1] in the dev profile)");
        assertThatThrownBy(() -> DEV.checkUrl("http://10.0.0.1/hook")).hasMessageContaining("http only to 127.0.0.1");
        assertThatThrownBy(() -> DEV.checkUrl("https://10.0.0.1/hook")).hasMessageContaining("'url': 10.0.0.1");
    }

    @Test
    void allowedNetworksAreReadCheckedAndJoinedByLoopbackInDev() throws Exception {
        WebhooksConfig config = WebhooksConfig.from(Env.of(Map.of("TALLY_WEBHOOK_ALLOW_NETWORKS", " 10.1.0.0/16, ,fd00::/8",
                "TALLY_WEBHOOKS", "false")), new Profile("prod"));
        assertThat(config.enabled()).isFalse();
        assertThat(PROD.enabled()).isTrue();
        assertThat(config.allowed()).extracting(Object::toString).containsExactly("10.1.0.0/16", "fd00::/8");
        assertThat(config.checkUrl("https://10.1.2.3/hook")).hasHost("10.1.2.3");
        assertThatThrownBy(() -> config.checkUrl("https://10.2.0.1/hook")).hasMessageContaining("'url': 10.2.0.1");
        assertThat(config.guard(Runnable::run).refusal(java.net.InetAddress.getByName("fd00::7"))).isNull();
        assertThat(PROD.allowed()).isEmpty();
        assertThat(DEV.allowed()).extracting(Object::toString).containsExactly("127.0.0.0/8", "::1/128");
        assertThatThrownBy(() -> WebhooksConfig.from(Env.of(Map.of("TALLY_WEBHOOK_ALLOW_NETWORKS", "10.0.0.0/33")), new Profile("prod")))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("TALLY_WEBHOOK_ALLOW_NETWORKS")
                .hasMessageContaining("comma-separated networks such as 10.1.0.0/16,fd00::/8");
    }

    @Test
    void aSubscriptionIsSentItsTypesAndItemsOrEverythingWhenItNamesNone() {
        Subscriptions.Filter all = Subscriptions.Filter.of(sub(List.of(), List.of()));
        assertThat(all.matches("post", "post:1")).isTrue();
        Subscriptions.Filter posts = Subscriptions.Filter.of(sub(List.of("post"), List.of()));
        assertThat(posts.matches("post", "post:1")).isTrue();
        assertThat(posts.matches("comment", "comment:1")).isFalse();
        Subscriptions.Filter one = Subscriptions.Filter.of(sub(List.of(), List.of("comment:9")));
        assertThat(one.matches("comment", "comment:9")).isTrue();
        assertThat(one.matches("comment", "comment:8")).isFalse();
        Subscriptions.Filter both = Subscriptions.Filter.of(sub(List.of("post"), List.of("comment:9")));
        assertThat(both.matches("post", "post:2")).isTrue();
        assertThat(both.matches("comment", "comment:9")).isTrue();
        assertThat(both.matches("comment", "comment:1")).isFalse();
    }

    @Test
    void aDeliveryCarriesTheCountsItsSeqAndAnIdStableForThatValue() {
        ItemCounts counts = ItemCounts.newBuilder().setItemType("post").setItemId("p1").setUpvotes(5).setDownvotes(2)
                .setReactions(Map.of("tada", 3L, "heart", 1L)).setWatermarks(Map.of("1", 9L, "0", 4L))
                .setUpdatedAt(Instant.parse("2026-12-07T10:00:00Z")).build();
        assertThat(Delivery.body(counts, 42)).isEqualTo("{\"type\":\"item.counts\",\"item_type\":\"post\",\"item_id\":\"p1\","
                + "\"seq\":42,\"position\":\"0:4,1:9\",\"counts\":{\"upvotes\":5,\"downvotes\":2,\"score\":3,"
                + "\"reactions\":{\"heart\":1,\"tada\":3}},\"changed_at\":\"2026-12-07T10:00:00Z\"}");
        String id = Delivery.webhookId("wh_a", "post:p1", 42);
        assertThat(id).matches("msg_[A-Za-z0-9_-]{22}").isEqualTo(Delivery.webhookId("wh_a", "post:p1", 42));
        assertThat(id).isNotEqualTo(Delivery.webhookId("wh_b", "post:p1", 42)).isNotEqualTo(Delivery.webhookId("wh_a", "post:p2", 42))
                .isNotEqualTo(Delivery.webhookId("wh_a", "post:p1", 43));
    }

    private static WebhookSubscription sub(List<String> types, List<String> items) {
        return TestSubscriptions.active().setItemTypes(types).setItems(items).build();
    }
}
