package dev.tally.projector.rankings;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;
import dev.tally.common.query.RemoteQuery;
import dev.tally.common.query.Unavailable;
import dev.tally.common.ranking.OrderKey;
import dev.tally.common.ranking.RankedList;
import dev.tally.common.ranking.RankingPolicy;
import dev.tally.schemas.Topics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The running lists of one policy: its Streams application ({@link RankingTopology}) and the pages read from it. A
 * page asks every partition's index for its first {@code limit} entries after the cursor — this instance's own
 * indexes directly, another instance's over HTTP, one request per instance — and merges them: each partition's list
 * is in order, so the first {@code limit} of the merge are the list's (docs/decisions/0018-live-rankings.md).
 */
public final class RankingService implements AutoCloseable {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    private final RankingPolicy policy;
    private final StreamsService service;
    private final Map<Integer, IndexDb> indexes;
    private final HostInfo self;
    private final String source;
    private final int partitions;
    private final RemoteQuery remote = new RemoteQuery();

    private RankingService(RankingPolicy policy, StreamsService service, Map<Integer, IndexDb> indexes, HostInfo self,
                           String source, int partitions) {
        this.policy = policy;
        this.service = service;
        this.indexes = indexes;
        this.self = self;
        this.source = source;
        this.partitions = partitions;
    }

    /** Starts the lists of {@code config.policy()}; {@code self} as for every Streams service (null: alone). */
    public static RankingService start(Runtime runtime, RankingsConfig config, HostInfo self) {
        String id = config.applicationId(config.policy());
        var props = runtime.kafka().streamsProps(id, runtime.stateDir(id), config.commitInterval(),
                self == null ? null : self.host() + ":" + self.port());
        Map<Integer, IndexDb> indexes = new ConcurrentHashMap<>();
        var topology = RankingTopology.build(config.namespace(), config.policy(), config.z(), indexes);
        StreamsService service = new StreamsService("rankings-" + config.policy().wireName(), topology, props)
                .start(runtime.kafka());
        return new RankingService(config.policy(), service, indexes, self,
                config.namespace().topic(Topics.VOTE_EVENTS).name(), runtime.kafka().partitions());
    }

    public RankingPolicy policy() {
        return policy;
    }

    public StreamsService service() {
        return service;
    }

    /** One entry of a page, with the partition offsets the page reflects. */
    public record Row(@JsonProperty("key") String key, @JsonProperty("upvotes") long upvotes,
                      @JsonProperty("downvotes") long downvotes, @JsonProperty("weighted_score") double weightedScore) {
        public OrderKey place() {
            return OrderKey.of(B64D.decode(key));
        }
    }

    /** The first rows after a place in one list, and the event-log offset each partition read reflects. */
    public record Page(@JsonProperty("rows") List<Row> rows, @JsonProperty("positions") Map<Integer, Long> positions) {}

    /**
     * The first {@code limit} entries of {@code itemType}'s {@code list} after {@code after} (null: from the top);
     * {@code aboveZero} stops at the first key that is not above 0.
     */
    public Page page(String itemType, RankedList list, OrderKey after, int limit, boolean aboveZero) throws Unavailable {
        Map<HostInfo, List<Integer>> owners = owners();
        List<Row> rows = new ArrayList<>();
        Map<Integer, Long> positions = new TreeMap<>();
        for (var e : owners.entrySet()) {
            Page part;
            if (self == null || e.getKey().equals(self)) {
                part = local(itemType, list, after, limit, aboveZero, e.getValue());
            } else {
                String path = "/internal/rankings/" + policy.wireName() + "/" + itemType + "?list=" + list.name()
                        + "&limit=" + limit + "&above_zero=" + aboveZero + "&partitions="
                        + e.getValue().stream().map(String::valueOf).collect(Collectors.joining(","))
                        + (after == null ? "" : "&after=" + B64.encodeToString(after.bytes()));
                part = remote.get("http://" + e.getKey().host() + ":" + e.getKey().port(), path, Page.class);
            }
            rows.addAll(part.rows());
            positions.putAll(part.positions());
        }
        rows.sort(Comparator.comparing(r -> B64D.decode(r.key()), Arrays::compareUnsigned));
        return new Page(rows.size() > limit ? new ArrayList<>(rows.subList(0, limit)) : rows, positions);
    }

    /** Which instance holds each partition's active task; every partition must have one. */
    private Map<HostInfo, List<Integer>> owners() throws Unavailable {
        Map<HostInfo, List<Integer>> owners = new TreeMap<>(Comparator.comparing(HostInfo::host).thenComparingInt(HostInfo::port));
        if (self == null) {
            List<Integer> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(p);
            }
            owners.put(new HostInfo("local", 0), all);
            return owners;
        }
        TreeSet<Integer> seen = new TreeSet<>();
        for (StreamsMetadata m : service.streams().streamsMetadataForStore(RankingTopology.ITEMS_STORE)) {
            for (TopicPartition tp : m.topicPartitions()) {
                if (tp.topic().equals(source) && seen.add(tp.partition())) {
                    owners.computeIfAbsent(m.hostInfo(), h -> new ArrayList<>()).add(tp.partition());
                }
            }
        }
        if (seen.size() < partitions) {
            throw new Unavailable("rankings of policy " + policy.wireName() + " have no owner for " + (partitions - seen.size())
                    + " of " + partitions + " partitions yet (rebalancing)");
        }
        return owners;
    }

    /** This instance's own part of a page, from the indexes of {@code parts}. */
    public Page local(String itemType, RankedList list, OrderKey after, int limit, boolean aboveZero, List<Integer> parts)
            throws Unavailable {
        return local(indexes, itemType, list, after, limit, aboveZero, parts);
    }

    static Page local(Map<Integer, IndexDb> indexes, String itemType, RankedList list, OrderKey after, int limit,
                      boolean aboveZero, List<Integer> parts) throws Unavailable {
        byte[] prefix = RankingIndex.listPrefix(list, itemType);
        byte[] from = after == null ? null : RankingIndex.listKey(list, itemType, after);
        List<Row> rows = new ArrayList<>();
        Map<Integer, Long> positions = new TreeMap<>();
        for (int p : parts) {
            IndexDb index = indexes.get(p);
            if (index == null) {
                throw new Unavailable("the rankings of partition " + p + " are not open here now (starting or moving)");
            }
            try {
                for (IndexDb.Row r : index.scan(prefix, from, limit,
                        key -> !aboveZero || RankingIndex.place(key, prefix.length).key() > 0)) {
                    RankingIndex.Entry entry = RankingIndex.entry(RankingIndex.place(r.key(), prefix.length), r.value());
                    rows.add(new Row(B64.encodeToString(entry.place().bytes()), entry.upvotes(), entry.downvotes(),
                            entry.weightedScore()));
                }
                byte[] mark = index.get(RankingIndex.single(RankingIndex.POSITION));
                positions.put(p, mark == null ? 0 : RankingIndex.markOffset(mark));
            } catch (IllegalStateException e) {
                throw new Unavailable("the rankings of partition " + p + " closed while read (moving)", e);
            }
        }
        return new Page(rows, positions);
    }

    @Override
    public void close() {
        service.close();
    }
}
