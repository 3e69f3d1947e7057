package dev.tally.common;

import dev.tally.schema.ReactionType;

/** Changes the reaction registry. */
public interface ReactionWriter {
    /** Adds or updates a code (active) and returns what was written. */
    ReactionType put(String code, String label, String iconUrl);

    /** Retires a code: it stays in the registry, inactive. */
    ReactionType retire(ReactionType current);
}
