package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import dev.tally.launcher.RequiredTools;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The PostgreSQL baseline on a real local PostgreSQL: the relational write path counts every vote exactly once.
 * Needs PostgreSQL's server binaries ({@code apt-get install -y postgresql}): without them it is skipped, or
 * fails under {@code CI=true} ({@link RequiredTools}).
 */
@ExtendWith(RequiredTools.PostgresServer.class)
class PostgresBaselineIT {
    private static final long VOTES = 2_000;
    private static final long WARMUP = 500;
    private static final int THREADS = 8;
    private static LocalPostgres postgres;

    @BeforeAll
    static void start() throws Exception {
        postgres = LocalPostgres.start(System.err);
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        PostgresBaseline.createSchema(postgres.jdbcUrl());
    }

    @Test
    void viralVotesAllCountOnTheOneItem() throws Exception {
        PostgresBaseline.Result result = PostgresBaseline.run(postgres.jdbcUrl(), Workload.VIRAL, 0, VOTES, THREADS, 120,
                System.err);

        assertThat(result.committed()).isEqualTo(VOTES);
        assertThat(result.failed()).isZero();
        assertThat(result.exact()).as(result.toString()).isTrue();
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl())) {
            Set<String> expectedVoters = new HashSet<>();
            for (long seq = 0; seq < VOTES; seq++) {
                expectedVoters.add(Workload.voter(seq));
            }
            Set<String> voters = new HashSet<>();
            long ups = 0;
            long downs = 0;
            try (ResultSet rs = c.createStatement().executeQuery("SELECT user_id, item_id, vote_value FROM votes")) {
                while (rs.next()) {
                    voters.add(rs.getString(1));
                    assertThat(rs.getString(2)).isEqualTo(Workload.VIRAL_ITEM);
                    if (rs.getInt(3) > 0) {
                        ups++;
                    } else {
                        downs++;
                    }
                }
            }
            assertThat(voters).isEqualTo(expectedVoters);
            assertThat(ups).isPositive();
            assertThat(downs).isPositive();
            assertThat(counts(c, Workload.VIRAL_ITEM)).containsExactly(ups, downs);
        }
    }

    @Test
    void uniformVotesOnALocalPostgresCountExactly() throws Exception {
        PostgresBaseline.Result result = PostgresBaseline.runLocal(Workload.UNIFORM, WARMUP, VOTES, THREADS, null, System.err);

        assertThat(result.warmup()).isEqualTo(WARMUP);
        assertThat(result.committed()).isEqualTo(VOTES);
        assertThat(result.failed()).isZero();
        assertThat(result.counted()).isEqualTo(WARMUP + VOTES);
        assertThat(result.mismatches()).isZero();
        assertThat(result.exact()).as(result.toString()).isTrue();
    }

    @Test
    void aRepeatedVoteChangesNothingAndAChangedVoteMovesTheCount() throws Exception {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl())) {
            PostgresBaseline.Voter voter = new PostgresBaseline.Voter(c);
            voter.vote("ann", "i1", 1);
            voter.vote("ann", "i1", 1);
            assertThat(counts(c, "i1")).containsExactly(1L, 0L);
            voter.vote("ann", "i1", -1);
            assertThat(counts(c, "i1")).containsExactly(0L, 1L);
            voter.vote("bob", "i1", -1);
            assertThat(counts(c, "i1")).containsExactly(0L, 2L);
            voter.vote("ann", "i1", 0);
            assertThat(counts(c, "i1")).containsExactly(0L, 1L);
        }
    }

    @Test
    void concurrentFirstVotesOfOneVoterCountOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier together = new CyclicBarrier(THREADS);
        try {
            List<Callable<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                calls.add(() -> {
                    try (Connection c = DriverManager.getConnection(postgres.jdbcUrl())) {
                        PostgresBaseline.Voter voter = new PostgresBaseline.Voter(c);
                        together.await();
                        return voter.vote("carl", "i2", 1);
                    }
                });
            }
            for (Future<Integer> f : pool.invokeAll(calls)) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl())) {
            assertThat(counts(c, "i2")).containsExactly(1L, 0L);
        }
    }

    /** {upvotes, downvotes} of an item's {@code vote_counts} row. */
    private static List<Long> counts(Connection c, String item) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT upvotes, downvotes FROM vote_counts WHERE item_id = ?")) {
            s.setString(1, item);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("a vote_counts row for " + item).isTrue();
                return List.of(rs.getLong(1), rs.getLong(2));
            }
        }
    }
}
