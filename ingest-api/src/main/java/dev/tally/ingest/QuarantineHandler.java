package dev.tally.ingest;

import dev.tally.common.KeyedView;
import dev.tally.common.QuarantineDecisions;
import dev.tally.schema.QuarantineRecord;
import dev.tally.schema.QuarantineStatus;
import io.javalin.http.Context;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The review API: {@code GET /v1/admin/quarantine} lists held votes; {@code POST
 * /v1/admin/quarantine/{id}/release|discard} sends the decision to the vote-processor (202: it is applied
 * asynchronously, exactly once). Admin token required.
 */
final class QuarantineHandler {
    private final KeyedView<QuarantineRecord> view;
    private final QuarantineDecisions.Sender decisions;
    private final Identities identities;

    QuarantineHandler(KeyedView<QuarantineRecord> view, QuarantineDecisions.Sender decisions, Identities identities) {
        this.view = view;
        this.decisions = decisions;
        this.identities = identities;
    }

    void list(Context ctx) {
        identities.requireAdmin(ctx);
        ctx.json(Map.of("held", view.snapshot().values().stream()
                .filter(r -> r.getStatus() == QuarantineStatus.HELD)
                .sorted(Comparator.comparing(QuarantineRecord::getDecidedAt))
                .map(QuarantineHandler::json).toList()));
    }

    void release(Context ctx) {
        decide(ctx, QuarantineStatus.RELEASED);
    }

    void discard(Context ctx) {
        decide(ctx, QuarantineStatus.DISCARDED);
    }

    private void decide(Context ctx, QuarantineStatus decision) {
        identities.requireAdmin(ctx);
        String id = ctx.pathParam("id");
        QuarantineRecord held = view.get(id).orElseThrow(() -> new ApiProblem(404, "not-held", "Not held",
                "no quarantined vote '" + VoteRequest.printable(id) + "'"));
        if (held.getStatus() != QuarantineStatus.HELD) {
            throw new ApiProblem(409, "already-decided", "Already decided",
                    "vote '" + id + "' was already " + held.getStatus().name().toLowerCase());
        }
        decisions.decide(held, decision, "admin");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("command_id", id);
        out.put("decision", decision.name().toLowerCase());
        ctx.status(202).json(out);
    }

    static Map<String, Object> json(QuarantineRecord r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("command_id", r.getCommandId());
        out.put("status", r.getStatus().name().toLowerCase());
        out.put("item_type", r.getCommand().getItemType());
        out.put("item_id", r.getCommand().getItemId());
        out.put("voter", r.getCommand().getVoter());
        out.put("vote_value", r.getCommand().getVoteValue());
        out.put("reaction", r.getCommand().getReaction());
        out.put("reason", r.getReason());
        out.put("since", r.getDecidedAt().toString());
        return out;
    }
}
