package dev.tally.ingest;

import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteOutcome;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;

/** Where the API sends a command, and how it hears the answer. */
public interface CommandSink {
    /** The two stages of one command: durably appended, then answered. */
    record Submission(CompletableFuture<RecordMetadata> appended, CompletableFuture<VoteOutcome> answered) {}

    /** Registers the waiter, then appends the command; the caller bounds both stages in time. */
    Submission submit(VoteCommand command);

    /** The {@code tally.vote-outcomes} partition this instance reads its answers from. */
    int replyPartition();
}
