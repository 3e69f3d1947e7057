package dev.tally.launcher.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --baseline postgres}: the relational design Tally is compared with (a {@code votes} row per user
 * and item, a denormalised {@code vote_counts} row per item, both written in one transaction per vote), driven
 * by the same {@link Workload}, vote count and concurrency as the Tally run
 * (docs/decisions/0013-postgres-baseline.md).
 *
 * <p>Plain JDBC, autocommit off, one connection per worker thread. One vote is one transaction:
 * <ol>
 *   <li>{@code INSERT INTO votes ... ON CONFLICT DO NOTHING}: a first vote by this user on this item
 *       has no previous value;</li>
 *   <li>otherwise {@code SELECT vote_value ... FOR UPDATE} reads the previous value under the row's lock,
 *       and {@code UPDATE votes} sets the new one (nothing at all when it is the same: set mode);</li>
 *   <li>{@code INSERT INTO vote_counts ... ON CONFLICT DO UPDATE SET upvotes = vote_counts.upvotes +
 *       excluded.upvotes, ...} applies the delta between the previous and the new value.</li>
 * </ol>
 * Insert-first rather than select-first: {@code SELECT ... FOR UPDATE} locks nothing when the row does not
 * exist yet, so two concurrent first votes of one user on one item would both see "no previous vote" and
 * both count; the insert waits on the other's uncommitted key instead. It also saves a round trip on a
 * first vote, which every bench vote is (a distinct voter per vote). The counter row is touched last, so
 * its lock (the one a viral item's votes queue on) is held only for the upsert and the commit.
 *
 * <p>Afterwards the tables are checked against each other, as a nightly drift repair of that design would:
 * the counters' sum must equal the non-zero {@code votes} rows and the committed votes, and every item's
 * counters must equal its {@code votes} rows ({@link Result#exact}).
 */
public final class PostgresBaseline {
    /** Attempts of one vote's transaction on a serialization failure or deadlock before it counts as failed. */
    static final int MAX_ATTEMPTS = 5;
    private static final Set<String> RETRYABLE = Set.of("40001", "40P01");

    /**
     * The relational design's tables: their columns and keys, with text ids (the workload's voters and items
     * are strings) and {@code updated_at} set by the statements, as PostgreSQL has no {@code ON UPDATE} clause.
     */
    static final List<String> SCHEMA = List.of(
            "DROP TABLE IF EXISTS votes, vote_counts",
            """
            CREATE TABLE votes (
              user_id     VARCHAR(64)  NOT NULL,
              item_id     VARCHAR(64)  NOT NULL,
              item_type   VARCHAR(32)  NOT NULL,
              vote_value  SMALLINT     NOT NULL,
              reaction    VARCHAR(32)  DEFAULT NULL,
              created_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
              updated_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
              PRIMARY KEY (user_id, item_id, item_type)
            )""",
            """
            CREATE TABLE vote_counts (
              item_id     VARCHAR(64)  NOT NULL,
              item_type   VARCHAR(32)  NOT NULL,
              upvotes     BIGINT       NOT NULL DEFAULT 0,
              downvotes   BIGINT       NOT NULL DEFAULT 0,
              PRIMARY KEY (item_id, item_type)
            )""");

    private PostgresBaseline() {}

    /**
     * @param warmup         votes committed before the measured run (the client's JIT, the server's caches and
     *                       plans warmed as Tally's are), in no figure but the check of the tables
     * @param committed      votes committed in the measured run
     * @param votesPerSecond committed votes per second of the measured run, from its first vote until the last
     *                       worker ends
     * @param retries        transactions retried after a serialization failure or deadlock
     * @param counted        {@code sum(upvotes) + sum(downvotes)} over {@code vote_counts}
     * @param voteRows       {@code votes} rows with a non-zero value
     * @param mismatches     items whose {@code vote_counts} row differs from their {@code votes} rows
     */
    public record Result(String workload, long votes, long warmup, long committed, long failed, long retries, long counted,
                         long voteRows, long mismatches, double seconds, long votesPerSecond, String firstError) {

        /** Whether every committed vote (warm-up included) is counted exactly once and the counters agree with the votes. */
        public boolean exact() {
            return counted == warmup + committed && voteRows == warmup + committed && mismatches == 0;
        }
    }

    /**
     * Starts a {@link LocalPostgres}, creates the schema, sends {@code warmup} votes that no figure includes,
     * runs the workload and stops the server.
     *
     * @param maxSeconds stop sending after this many seconds, or null for no limit
     */
    public static Result runLocal(Workload workload, long warmup, long votes, int threads, Integer maxSeconds, PrintStream err)
            throws IOException, InterruptedException, SQLException {
        try (LocalPostgres postgres = LocalPostgres.start(err)) {
            err.printf("baseline postgres: PostgreSQL %s on 127.0.0.1:%d (synchronous_commit=off); %s, %,d votes after a "
                    + "warm-up of %,d, %d clients%n", postgres.version(), postgres.port(), workload.cliName(), votes, warmup, threads);
            createSchema(postgres.jdbcUrl());
            return run(postgres.jdbcUrl(), workload, warmup, votes, threads, maxSeconds, err);
        }
    }

    /** Drops and creates {@link #SCHEMA}: {@link #run} expects empty tables. */
    public static void createSchema(String jdbcUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            for (String sql : SCHEMA) {
                s.execute(sql);
            }
        }
    }

    /**
     * Sends {@code warmup} votes of {@code workload}, then {@code votes} more (the measured run, each voter distinct
     * from the warm-up's), from {@code threads} connections into the (empty) tables of {@link #createSchema}, then
     * checks the tables. Progress on {@code err}.
     *
     * @param maxSeconds stop sending the measured votes after this many seconds, or null for no limit
     * @throws IllegalStateException when a worker died (could not connect, for one): the run is not a measurement
     */
    public static Result run(String jdbcUrl, Workload workload, long warmup, long votes, int threads, Integer maxSeconds,
                             PrintStream err) throws SQLException, InterruptedException {
        AtomicLong retries = new AtomicLong();
        LoadStats warm = new LoadStats(0, warmup, Long.MAX_VALUE / 2 + System.nanoTime(), 0, false);
        if (warmup > 0) {
            drive(jdbcUrl, workload, threads, warm, new AtomicLong(), "baseline postgres warm-up", err);
        }
        long start = System.nanoTime();
        long deadline = maxSeconds == null ? start + Long.MAX_VALUE / 2 : start + Duration.ofSeconds(maxSeconds).toNanos();
        LoadStats stats = new LoadStats(warmup, votes, deadline, 0, true);
        drive(jdbcUrl, workload, threads, stats, retries, "baseline postgres " + workload.cliName(), err);
        double seconds = (System.nanoTime() - start) / 1e9;
        err.printf("%nbaseline postgres: %,d committed in %.1f s (%,d failed, %,d retried%s)%n", stats.acknowledged(),
                seconds, stats.failed(), retries.get(), stats.firstError() == null ? "" : ", first: " + stats.firstError());
        return check(jdbcUrl, workload, votes, warm, stats, retries.get(), seconds);
    }

    /** The run's result, with the tables checked against each other and against the committed votes. */
    static Result check(String jdbcUrl, Workload workload, long votes, LoadStats warm, LoadStats stats, long retries,
                        double seconds) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            long counted = single(s, "SELECT coalesce(sum(upvotes) + sum(downvotes), 0) FROM vote_counts");
            long voteRows = single(s, "SELECT count(*) FROM votes WHERE vote_value <> 0");
            long mismatches = single(s, """
                    SELECT count(*)
                    FROM (SELECT item_id, item_type, count(*) FILTER (WHERE vote_value > 0) AS up,
                                 count(*) FILTER (WHERE vote_value < 0) AS down
                          FROM votes GROUP BY item_id, item_type) v
                    FULL JOIN vote_counts c USING (item_id, item_type)
                    WHERE coalesce(v.up, 0) <> coalesce(c.upvotes, 0) OR coalesce(v.down, 0) <> coalesce(c.downvotes, 0)""");
            return new Result(workload.cliName(), votes, warm.acknowledged(), stats.acknowledged(), stats.failed() + warm.failed(),
                    retries, counted, voteRows, mismatches, Math.round(seconds * 10) / 10.0,
                    Math.round(stats.acknowledged() / seconds), stats.firstError() != null ? stats.firstError() : warm.firstError());
        }
    }

    /** Sends the votes {@code stats} hands out from {@code threads} connections, one worker each, until none are left. */
    private static void drive(String jdbcUrl, Workload workload, int threads, LoadStats stats, AtomicLong retries,
                              String label, PrintStream err) throws InterruptedException {
        Thread progress = stats.progressLine(err, label, System.nanoTime());
        try {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread worker = new Thread(() -> work(jdbcUrl, workload, id, stats, retries), "bench-postgres-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
        } finally {
            progress.interrupt();
            progress.join();
        }
        if (stats.crash() != null) {
            throw new IllegalStateException("a baseline worker failed: " + stats.crash(), stats.crash());
        }
    }

    private static void work(String jdbcUrl, Workload workload, int id, LoadStats stats, AtomicLong retries) {
        SplittableRandom random = new SplittableRandom(0x9057L * 31 + id);
        try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
            Voter voter = new Voter(connection);
            for (long seq = stats.claim(); seq >= 0; seq = stats.claim()) {
                Workload.Vote vote = workload.vote(seq, random);
                try {
                    retries.addAndGet(voter.vote(vote.voter(), vote.itemId(), vote.value()));
                    stats.acked();
                } catch (SQLException e) {
                    stats.failed(e.getSQLState() + ": " + e.getMessage());
                }
            }
        } catch (SQLException | RuntimeException e) {
            stats.crashed(e);
        }
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The write path on one connection (autocommit turned off), its statements prepared once. */
    static final class Voter implements AutoCloseable {
        private final Connection connection;
        private final PreparedStatement insertVote;
        private final PreparedStatement lockVote;
        private final PreparedStatement updateVote;
        private final PreparedStatement addCounts;
        private final PreparedStatement readCounts;
        private long upvotes;
        private long downvotes;

        Voter(Connection connection) throws SQLException {
            this.connection = connection;
            connection.setAutoCommit(false);
            insertVote = connection.prepareStatement("INSERT INTO votes (user_id, item_id, item_type, vote_value) "
                    + "VALUES (?, ?, '" + Workload.ITEM_TYPE + "', ?) ON CONFLICT (user_id, item_id, item_type) DO NOTHING");
            lockVote = connection.prepareStatement("SELECT vote_value FROM votes "
                    + "WHERE user_id = ? AND item_id = ? AND item_type = '" + Workload.ITEM_TYPE + "' FOR UPDATE");
            updateVote = connection.prepareStatement("UPDATE votes SET vote_value = ?, updated_at = CURRENT_TIMESTAMP "
                    + "WHERE user_id = ? AND item_id = ? AND item_type = '" + Workload.ITEM_TYPE + "'");
            addCounts = connection.prepareStatement("INSERT INTO vote_counts (item_id, item_type, upvotes, downvotes) "
                    + "VALUES (?, '" + Workload.ITEM_TYPE + "', ?, ?) ON CONFLICT (item_id, item_type) DO UPDATE "
                    + "SET upvotes = vote_counts.upvotes + excluded.upvotes, "
                    + "downvotes = vote_counts.downvotes + excluded.downvotes RETURNING upvotes, downvotes");
            readCounts = connection.prepareStatement("SELECT upvotes, downvotes FROM vote_counts "
                    + "WHERE item_id = ? AND item_type = '" + Workload.ITEM_TYPE + "'");
        }

        /** The item's counts after the last vote, as its transaction left them: {upvotes, downvotes}. */
        long[] counts() {
            return new long[] {upvotes, downvotes};
        }

        @Override
        public void close() throws SQLException {
            for (PreparedStatement s : List.of(insertVote, lockVote, updateVote, addCounts, readCounts)) {
                s.close();
            }
        }

        /**
         * Sets {@code user}'s vote on {@code item} to {@code value} (+1, -1, or 0 to retract) in one
         * transaction, retried on a serialization failure or deadlock.
         *
         * @return how many retries it took
         * @throws SQLException the last attempt's error, the transaction rolled back
         */
        int vote(String user, String item, int value) throws SQLException {
            for (int attempt = 1; ; attempt++) {
                try {
                    apply(user, item, value);
                    connection.commit();
                    return attempt - 1;
                } catch (SQLException e) {
                    rollbackQuietly();
                    if (!RETRYABLE.contains(e.getSQLState()) || attempt >= MAX_ATTEMPTS) {
                        throw e;
                    }
                }
            }
        }

        private void apply(String user, String item, int value) throws SQLException {
            insertVote.setString(1, user);
            insertVote.setString(2, item);
            insertVote.setShort(3, (short) value);
            int previous = 0;
            if (insertVote.executeUpdate() == 0) {
                lockVote.setString(1, user);
                lockVote.setString(2, item);
                try (ResultSet rs = lockVote.executeQuery()) {
                    rs.next();
                    previous = rs.getShort(1);
                }
                if (previous == value) {
                    readCounts(item); // set mode: the same vote again changes nothing
                    return;
                }
                updateVote.setShort(1, (short) value);
                updateVote.setString(2, user);
                updateVote.setString(3, item);
                updateVote.executeUpdate();
            }
            if (previous == value) {
                readCounts(item); // a first vote of 0: nothing to count
                return;
            }
            addCounts.setString(1, item);
            addCounts.setLong(2, Math.max(0, value) - Math.max(0, previous));
            addCounts.setLong(3, Math.max(0, -value) - Math.max(0, -previous));
            try (ResultSet rs = addCounts.executeQuery()) {
                rs.next();
                upvotes = rs.getLong(1);
                downvotes = rs.getLong(2);
            }
        }

        private void readCounts(String item) throws SQLException {
            readCounts.setString(1, item);
            try (ResultSet rs = readCounts.executeQuery()) {
                boolean found = rs.next();
                upvotes = found ? rs.getLong(1) : 0;
                downvotes = found ? rs.getLong(2) : 0;
            }
        }

        private void rollbackQuietly() {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // the connection is broken; the next statement reports it
            }
        }
    }
}
