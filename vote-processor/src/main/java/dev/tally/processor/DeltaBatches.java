package dev.tally.processor;

import dev.tally.schema.CountDelta;
import dev.tally.schema.CountDeltaBatch;
import dev.tally.schemas.Topics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The count deltas one step of the processor sends (a command batch, a moderation decision, a flush), gathered
 * into one {@link CountDeltaBatch} per partition of {@code tally.count-deltas}: each keyed by its first item, so
 * Kafka's default partitioner puts it where every one of its items belongs and the projector's task for that
 * partition folds them all: a command batch of votes on many items sends one delta record per partition, not one
 * per item (docs/decisions/0003-pre-aggregated-count-deltas.md).
 */
final class DeltaBatches {
    private final int partitions;
    private final List<List<CountDelta>> byPartition;
    private final List<String> firstKeys;
    private int size;

    /** @param partitions the partitions of {@code tally.count-deltas} */
    DeltaBatches(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("tally.count-deltas has " + partitions + " partitions");
        }
        this.partitions = partitions;
        this.byPartition = Stream.generate(() -> new ArrayList<CountDelta>()).limit(partitions).collect(Collectors.toList());
        this.firstKeys = new ArrayList<>(Collections.nCopies(partitions, (String) null));
    }

    /** Adds an item's delta to the batch of the item's partition. */
    void add(String itemKey, CountDelta delta) {
        int p = Topics.partition(itemKey, partitions);
        if (firstKeys.get(p) == null) {
            firstKeys.set(p, itemKey);
        }
        byPartition.get(p).add(delta);
        size++;
    }

    /** Deltas gathered since the last {@link #send}. */
    int size() {
        return size;
    }

    /** Hands each partition's batch (key: its first item) to {@code forward} and starts again empty. */
    void send(BiConsumer<String, CountDeltaBatch> forward) {
        if (size == 0) {
            return;
        }
        for (int p = 0; p < partitions; p++) {
            List<CountDelta> deltas = byPartition.get(p);
            if (!deltas.isEmpty()) {
                forward.accept(firstKeys.get(p), new CountDeltaBatch(new ArrayList<>(deltas)));
                deltas.clear();
                firstKeys.set(p, null);
            }
        }
        size = 0;
    }
}
