package dev.tally.schemas;

import dev.tally.schema.CountDelta;
import dev.tally.schema.FraudFlag;
import dev.tally.schema.ItemBurst;
import dev.tally.schema.ItemProjection;
import dev.tally.schema.NetworkActivity;
import dev.tally.schema.IdempotencyRecord;
import dev.tally.schema.ItemCounts;
import dev.tally.schema.ItemStatus;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.RankingArtifact;
import dev.tally.schema.ReactionType;
import dev.tally.schema.SchemaReader;
import dev.tally.schema.VoteCommand;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoteOutcome;
import dev.tally.schema.VoterItemState;
import dev.tally.schema.VoterQuota;
import dev.tally.schema.WebhookAttempt;
import dev.tally.schema.WebhookPosition;
import dev.tally.schema.WebhookSubscription;
import java.util.List;
import org.apache.avro.Schema;

/** Every record Tally writes to a topic or a changelogged store: the records the compatibility gate guards. */
public final class CurrentSchemas {
    private CurrentSchemas() {}

    public static final List<Schema> ALL = List.of(
            VoteCommand.getClassSchema(), VoteEvent.getClassSchema(), VoteOutcome.getClassSchema(),
            CountDelta.getClassSchema(), ItemCounts.getClassSchema(), QuarantineRecord.getClassSchema(),
            ReactionType.getClassSchema(), ItemStatus.getClassSchema(), VoterItemState.getClassSchema(),
            IdempotencyRecord.getClassSchema(), VoterQuota.getClassSchema(), RankingArtifact.getClassSchema(),
            FraudFlag.getClassSchema(), NetworkActivity.getClassSchema(), ItemBurst.getClassSchema(),
            SchemaReader.getClassSchema(), ItemProjection.getClassSchema(),
            WebhookSubscription.getClassSchema(), WebhookAttempt.getClassSchema(), WebhookPosition.getClassSchema());
}
