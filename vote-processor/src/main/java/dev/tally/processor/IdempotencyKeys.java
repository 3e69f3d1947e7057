package dev.tally.processor;

import dev.tally.common.StorePurge;
import dev.tally.schema.IdempotencyRecord;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A voter's {@code Idempotency-Key}s and the first answer given under each
 * ({@value VoteTopology#IDEMPOTENCY_STORE}, voter|key), for {@code TALLY_IDEMPOTENCY_TTL}.
 */
final class IdempotencyKeys {
    private final KeyValueStore<String, IdempotencyRecord> store;
    private final Duration ttl;

    IdempotencyKeys(KeyValueStore<String, IdempotencyRecord> store, Duration ttl) {
        this.store = store;
        this.ttl = ttl;
    }

    /** The live first use of the command's key, if it has one. */
    Optional<IdempotencyRecord> first(VoteCommand c, long now) {
        if (c.getIdempotencyKey() == null) {
            return Optional.empty();
        }
        IdempotencyRecord first = store.get(key(c));
        return first != null && first.getExpiresAt().toEpochMilli() > now ? Optional.of(first) : Optional.empty();
    }

    /** Remembers the answer to a command with a key. */
    void remember(VoteCommand c, VoteOutcome answer, long now) {
        if (c.getIdempotencyKey() != null) {
            store.put(key(c), new IdempotencyRecord(c.getRequestHash(), answer, Instant.ofEpochMilli(now).plus(ttl)));
        }
    }

    /** Drops keys past their expiry; lookups already ignore them, this frees the space. */
    void purgeExpired(long now) {
        StorePurge.deleteWhere(store, r -> r.getExpiresAt().toEpochMilli() <= now);
    }

    private static String key(VoteCommand c) {
        return c.getVoter() + "|" + c.getIdempotencyKey();
    }
}
