package dev.tally.webhooks;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookSigningException;
import dev.tally.common.Secrets;
import dev.tally.schema.WebhookSubscription;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each subscription's signing secrets, derived rather than stored: HMAC-SHA256 of the subscription's id and the
 * secret's generation under the node's {@code webhook-secret} key. Nothing at rest holds a secret, every node that
 * shares {@code TALLY_SECRET} signs alike, and rotating is adding one to the generation. The secret is shown once,
 * when the subscription is created or rotated, as {@code whsec_<base64 of its 32 bytes>}.
 */
public final class WebhookSecrets {
    public static final String PREFIX = "whsec_";

    private final byte[] key;
    /** Derived secrets by subscription and generation: one HMAC each, not one per delivery. */
    private final Map<String, byte[]> derived = new ConcurrentHashMap<>();

    public WebhookSecrets(Secrets secrets) {
        this.key = secrets.derive("webhook-secret");
    }

    byte[] secret(String subscriptionId, int generation) {
        return derived.computeIfAbsent(subscriptionId + ":" + generation, k -> Secrets.hmac(key, k));
    }

    /** The secret a receiver verifies with, in the Standard Webhooks form. */
    public String shown(String subscriptionId, int generation) {
        return PREFIX + Base64.getEncoder().encodeToString(secret(subscriptionId, generation));
    }

    /**
     * The {@code webhook-signature} header: {@code v1,<signature>} under the current secret, followed, during the
     * day after a rotation, by the signature under the previous one.
     */
    public String signature(WebhookSubscription sub, String webhookId, long timestamp, String body, Instant now) {
        String current = sign(secret(sub.getId(), sub.getSecretGeneration()), webhookId, timestamp, body);
        Instant previousUntil = sub.getPreviousSecretUntil();
        if (previousUntil != null && now.isBefore(previousUntil) && sub.getSecretGeneration() > 1) {
            return current + " " + sign(secret(sub.getId(), sub.getSecretGeneration() - 1), webhookId, timestamp, body);
        }
        return current;
    }

    private static String sign(byte[] secret, String webhookId, long timestamp, String body) {
        try {
            return new Webhook(secret).sign(webhookId, timestamp, body);
        } catch (WebhookSigningException e) {
            throw new IllegalStateException("cannot sign a webhook: " + e.getMessage(), e);
        }
    }
}
