package dev.tally.common;

import java.util.Arrays;
import java.util.Optional;

/**
 * Why a command was refused, with the problem type slug and HTTP status the API answers. The ingest API
 * refuses early what it can see; the vote-processor refuses what raced past it, and its answer carries
 * the same slug.
 */
public enum Rejection {
    UNKNOWN_REACTION("unknown-reaction", 400, "Unknown reaction"),
    RETIRED_REACTION("retired-reaction", 400, "Retired reaction"),
    ITEM_NOT_FOUND("item-not-found", 404, "Item not found"),
    ITEM_LOCKED("item-locked", 409, "Item locked"),
    CATALOG_VERSION("catalog-version", 409, "Catalogue version conflict"),
    IDEMPOTENCY_CONFLICT("idempotency-conflict", 409, "Idempotency key reused"),
    RATE_LIMITED("rate-limited", 429, "Too many votes"),
    QUOTA_EXCEEDED("quota-exceeded", 429, "Daily quota reached");

    public final String slug;
    public final int status;
    public final String title;

    Rejection(String slug, int status, String title) {
        this.slug = slug;
        this.status = status;
        this.title = title;
    }

    public static Optional<Rejection> bySlug(String slug) {
        return Arrays.stream(values()).filter(r -> r.slug.equals(slug)).findFirst();
    }
}
