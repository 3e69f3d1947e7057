package dev.tally.common.ranking;

import dev.tally.common.query.Scores;
import dev.tally.schema.Outcome;
import dev.tally.schema.VoteEvent;
import dev.tally.schema.VoterItemState;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * An independent model of the ranked lists for tests: every voter's current vote on every item and each item's first
 * event, from which any list's key is computed from scratch. Random events of every kind — votes cast, changed and
 * retracted, reactions alone, weights and signed-in flags of every kind — are made here, folded into the model, and
 * handed to the code under test.
 */
public final class VoteModel {
    /** Weights that add up exactly, so the model's sums and a running sum are the same numbers. */
    private static final double[] WEIGHTS = {1.0, 0.5, 0.25, 0.0};

    private record Vote(int value, double weight, Instant castAt, Boolean anonymous) {}

    static {
        dev.tally.schemas.AvroSerde.of(VoteEvent.class); // its serde trusts Tally's records, whose builders Avro checks
    }

    private final Map<String, Map<String, Vote>> votes = new HashMap<>();
    private final Map<String, Instant> firstEvent = new HashMap<>();

    /** A random event of {@code voter} on {@code itemKey} ({@code type:id}) at {@code now}, folded into the model. */
    public VoteEvent next(SplittableRandom random, String itemKey, String voter, Instant now) {
        Map<String, Vote> ofItem = votes.computeIfAbsent(itemKey, k -> new HashMap<>());
        Vote before = ofItem.getOrDefault(voter, new Vote(0, 1.0, null, null));
        Boolean anonymous = switch (random.nextInt(3)) {
            case 0 -> Boolean.TRUE;
            case 1 -> Boolean.FALSE;
            default -> null;
        };
        int value = random.nextInt(4) == 0 ? before.value() : random.nextInt(-1, 2); // a quarter: a reaction alone
        double weight = value == before.value() ? before.weight() : WEIGHTS[random.nextInt(WEIGHTS.length)];
        Vote after = value == before.value() ? before : new Vote(value, weight, now, anonymous);
        if (after.value() == 0) {
            ofItem.remove(voter);
        } else {
            ofItem.put(voter, after);
        }
        firstEvent.putIfAbsent(itemKey, now);
        String type = itemKey.substring(0, itemKey.indexOf(':'));
        return VoteEvent.newBuilder().setCommandId("c").setVoter(voter).setItemType(type)
                .setItemId(itemKey.substring(type.length() + 1)).setOutcome(Outcome.ACCEPTED)
                .setBefore(new VoterItemState(before.value(), null, before.weight()))
                .setAfter(new VoterItemState(after.value(), value == before.value() ? "heart" : null, after.weight()))
                .setBeforeCastAt(before.value() == 0 ? null : before.castAt())
                .setBeforeAnonymous(before.value() == 0 ? null : before.anonymous())
                .setAnonymous(anonymous).setReceivedAt(now).setResolvedAt(now).build();
    }

    /** Every item that had an event, by key. */
    public SortedSet<String> items() {
        return new TreeSet<>(firstEvent.keySet());
    }

    /** The item's key in {@code list} at {@code now} under {@code policy}, or NaN when the list does not hold it. */
    public double key(RankingPolicy policy, String itemKey, RankedList list, Instant now, double z) {
        double u = 0;
        double d = 0;
        double windowed = 0;
        boolean inWindow = false;
        RankingWindow window = list.window();
        for (Vote v : votes.getOrDefault(itemKey, Map.of()).values()) {
            double w = switch (policy) {
                case ALL -> 1.0;
                case TRUSTED -> v.weight();
                case SIGNED_IN -> Boolean.TRUE.equals(v.anonymous()) ? 0.0 : v.weight();
            };
            if (v.value() > 0) {
                u += w;
            } else {
                d += w;
            }
            if (window != null) {
                long g = window.length().toMillis() / 60;
                if (Math.floorDiv(v.castAt().toEpochMilli(), g) > Math.floorDiv(now.toEpochMilli(), g) - 60 && w != 0) {
                    windowed += v.value() * w;
                    inWindow = true;
                }
            }
        }
        Instant first = firstEvent.get(itemKey);
        return switch (list) {
            case HOT -> Scores.hot(u - d, first);
            case BEST -> u + d > 0 ? Scores.wilsonLowerBound(u, u + d, z) : Double.NaN;
            case TOP_ALL -> u - d;
            case CONTROVERSIAL -> u > 0 && d > 0 ? Scores.controversy(u, d) : Double.NaN;
            case NEW -> first.toEpochMilli();
            default -> inWindow ? windowed : Double.NaN;
        };
    }
}
