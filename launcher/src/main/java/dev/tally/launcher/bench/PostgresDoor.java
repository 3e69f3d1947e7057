package dev.tally.launcher.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tally.broker.FreePort;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ./tally bench --path http --baseline postgres}: the relational design behind HTTP, as a team would build it
 * instead of Tally — Tally's own HTTP framework and JSON library (Javalin on Jetty, Jackson), a HikariCP pool of
 * {@code --clients} connections, and {@code POST /v1/votes} running {@link PostgresBaseline}'s transaction (the vote
 * inserted or locked and changed, the counter row upserted) and answering the item's counts after it. The voter is
 * {@code X-Tally-User}, as the bench's Tally votes are.
 *
 * <p>It does no identity hashing, no limits, no idempotency, no fraud rules and no event log: its figure is the most
 * that design does behind the same door, not what it would do with Tally's guarantees.
 */
public final class PostgresDoor implements AutoCloseable {
    /** What a vote's body holds; the door reads these and nothing else. */
    public record VoteBody(String item_type, String item_id, Integer vote_value, String mode) {}

    private final HikariDataSource pool;
    private final Javalin http;
    private final AtomicLong retries = new AtomicLong();

    private PostgresDoor(HikariDataSource pool, Javalin http) {
        this.pool = pool;
        this.http = http;
    }

    /** Starts the door on 127.0.0.1, a free port, with a pool of {@code connections} to {@code jdbcUrl}. */
    public static PostgresDoor start(String jdbcUrl, int connections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(connections);
        config.setMinimumIdle(connections);
        config.setPoolName("bench-postgres-pool");
        HikariDataSource pool = new HikariDataSource(config);
        PostgresDoor[] door = new PostgresDoor[1];
        Javalin http = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = "127.0.0.1";
            cfg.jetty.port = FreePort.pick();
            cfg.routes.post("/v1/votes", ctx -> door[0].vote(ctx));
        });
        door[0] = new PostgresDoor(pool, http);
        http.start();
        return door[0];
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + http.port();
    }

    /** Transactions retried after a serialization failure or deadlock. */
    public long retries() {
        return retries.get();
    }

    private void vote(Context ctx) {
        VoteBody body = ctx.bodyAsClass(VoteBody.class);
        String user = ctx.header("X-Tally-User");
        if (user == null || body.item_id() == null || body.vote_value() == null
                || !Workload.ITEM_TYPE.equals(body.item_type())) {
            ctx.status(400).json(Map.of("title", "Invalid request"));
            return;
        }
        try (Connection c = pool.getConnection(); PostgresBaseline.Voter voter = new PostgresBaseline.Voter(c)) {
            retries.addAndGet(voter.vote(user, body.item_id(), body.vote_value()));
            long[] counts = voter.counts();
            ctx.json(Map.of("item_type", body.item_type(), "item_id", body.item_id(), "user_vote", body.vote_value(),
                    "counts", Map.of("upvotes", counts[0], "downvotes", counts[1], "score", counts[0] - counts[1])));
        } catch (SQLException e) {
            ctx.status(503).json(Map.of("title", "Database unavailable", "detail", String.valueOf(e.getSQLState())));
        }
    }

    @Override
    public void close() {
        http.stop();
        pool.close();
    }

    /** The door's run: its result, with the answer latency percentiles from each vote's due time. */
    public record Run(PostgresBaseline.Result result, Double answerP50Ms, Double answerP99Ms) {}

    /**
     * On a throwaway {@link LocalPostgres}: {@code warmup} votes that no figure includes (its JIT and the server's
     * caches warmed as Tally's are), then {@code votes} more under the same load as Tally's HTTP run — open loop at
     * {@code rate} votes/s, or at most {@code connections} unanswered — then the tables checked.
     */
    public static Run runLocal(Workload workload, long warmup, long votes, int poolSize, int connections, long rate,
                               Integer maxSeconds, PrintStream err) throws Exception {
        try (LocalPostgres postgres = LocalPostgres.start(err)) {
            PostgresBaseline.createSchema(postgres.jdbcUrl());
            try (PostgresDoor door = start(postgres.jdbcUrl(), poolSize);
                 HttpDriver driver = new HttpDriver(door.baseUrl(), connections, "bench-postgres-http")) {
                err.printf("baseline postgres over HTTP: PostgreSQL %s, Javalin + HikariCP (%d connections) at %s; %s, %,d votes "
                        + "after a warm-up of %,d, %d HTTP connections%n", postgres.version(), poolSize, door.baseUrl(),
                        workload.cliName(), votes, warmup, connections);
                LoadStats warm = new LoadStats(0, warmup, Long.MAX_VALUE / 2 + System.nanoTime(), 0, false);
                if (warmup > 0) {
                    HttpLoad.run(driver, workload, connections, warm, null);
                }
                long start = System.nanoTime();
                long deadline = maxSeconds == null ? start + Long.MAX_VALUE / 2 : start + Duration.ofSeconds(maxSeconds).toNanos();
                LoadStats stats = new LoadStats(warmup, votes, deadline, rate, true);
                Thread progress = stats.progressLine(err, "baseline postgres http " + workload.cliName(), start);
                try {
                    HttpLoad.run(driver, workload, connections, stats, null);
                } finally {
                    progress.interrupt();
                    progress.join();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                err.printf("%nbaseline postgres over HTTP: %,d answered in %.1f s (%,d failed%s)%n", stats.acknowledged(), seconds,
                        stats.failed(), stats.firstError() == null ? "" : ", first: " + stats.firstError());
                PostgresBaseline.Result result = PostgresBaseline.check(postgres.jdbcUrl(), workload, votes, warm, stats,
                        door.retries(), seconds);
                return new Run(result, stats.answers().percentileMillis(50), stats.answers().percentileMillis(99));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the local PostgreSQL: " + e.getMessage(), e);
        }
    }
}
