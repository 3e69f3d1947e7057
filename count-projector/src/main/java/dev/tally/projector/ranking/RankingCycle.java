package dev.tally.projector.ranking;

import dev.tally.schema.ItemCounts;
import dev.tally.schema.RankingArtifact;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the ranking job without its I/O: ranks every item type present in the counts and keeps the
 * artifacts that validate. A generation that does not validate is logged and dropped, so the previous
 * artifact stays published until it goes stale and readers fall back to "being updated".
 */
final class RankingCycle {
    private static final Logger LOG = LoggerFactory.getLogger(RankingCycle.class);

    private final RankingValidator validator;

    RankingCycle(RankingValidator validator) {
        this.validator = validator;
    }

    /** The servable artifacts, one per item type seen, ordered by type. */
    List<RankingArtifact> generate(Collection<ItemCounts> latest, Instant now) {
        Map<String, List<ItemCounts>> byType = new TreeMap<>();
        for (ItemCounts counts : latest) {
            byType.computeIfAbsent(counts.getItemType(), t -> new ArrayList<>()).add(counts);
        }
        return generate(byType, now);
    }

    /** The servable artifacts of the given types (each with the counts that decide its list), ordered by type. */
    List<RankingArtifact> generate(Map<String, List<ItemCounts>> byType, Instant now) {
        List<RankingArtifact> out = new ArrayList<>();
        new TreeMap<>(byType).forEach((type, items) -> {
            try {
                RankingArtifact artifact = Rankings.rank(type, items, now);
                List<String> problems = validator.problems(artifact, now);
                if (problems.isEmpty()) {
                    out.add(artifact);
                } else {
                    LOG.error("ranking of '{}' failed validation and is not published: {}", type, problems);
                }
            } catch (RuntimeException e) {
                LOG.error("ranking of '{}' failed and is not published", type, e);
            }
        });
        return out;
    }
}
