package dev.tally.projector.reconcile;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The corrections one repair wrote.
 *
 * @param items   the item keys corrected, one {@code CountDelta} each
 * @param offsets per {@code tally.count-deltas} partition, the offset of the last correction written
 *                there: once the count-projector has committed past it, every view reflects the repair
 */
public record Repair(List<String> items, Map<TopicPartition, Long> offsets) {
    public static final Repair NONE = new Repair(List.of(), Map.of());

    public Repair {
        items = List.copyOf(items);
        offsets = Map.copyOf(offsets);
    }
}
