package dev.tally.launcher.bench;

import dev.tally.broker.FreePort;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL for the bench's baseline: a fresh cluster in a temporary directory, listening on
 * a free port of 127.0.0.1 (its unix socket in the same directory, so it never meets a system cluster),
 * stopped and deleted by {@link #close}.
 *
 * <p>The binaries are the highest version under {@code /usr/lib/postgresql/<version>/bin} (Debian's
 * layout); when there are none and the JVM runs as root, {@code apt-get install -y postgresql} installs
 * them. PostgreSQL refuses to run as root, so a root JVM runs {@code initdb} and {@code pg_ctl} as the
 * {@code postgres} user (through {@code runuser}) in a directory owned by that user.
 *
 * <p>Settings: {@code max_connections=200} (the bench's {@code --clients}, at most 190, with room),
 * {@code shared_buffers=256MB} and {@code synchronous_commit=off}. The last one is the like-for-like
 * setting: the bench's single Kafka broker acknowledges a write once it is in the page cache, without an
 * fsync ({@code log.flush.interval.messages} unbounded, flushing left to the OS), and
 * {@code synchronous_commit=off} is PostgreSQL's equivalent: a commit returns before its WAL is flushed,
 * which the WAL writer does within a few hundred milliseconds; a crash can lose those, never consistency.
 * It is also the setting most favourable to PostgreSQL short of unsafe ones: {@code fsync} stays on
 * (docs/decisions/0013-postgres-baseline.md).
 */
public final class LocalPostgres implements AutoCloseable {
    private static final Path INSTALL_ROOT = Path.of("/usr/lib/postgresql");
    private static final String SERVICE_USER = "postgres";
    /** The superuser initdb creates; authentication is {@code trust}, so no password. */
    public static final String USER = "tally";

    private final Path dir;
    private final Path data;
    private final Path bin;
    private final boolean asServiceUser;
    private final int port;
    /** Stops the server if the JVM exits before {@link #close} (Ctrl-C): it is a process of its own and would outlive it. */
    private final Thread onExit = new Thread(this::closeOnExit, "bench-postgres-stop");
    private boolean stopped;

    private LocalPostgres(Path dir, Path bin, boolean asServiceUser, int port) {
        this.dir = dir;
        this.data = dir.resolve("data");
        this.bin = bin;
        this.asServiceUser = asServiceUser;
        this.port = port;
    }

    /**
     * Initialises and starts a cluster in a new temporary directory, installing PostgreSQL first when it
     * is missing (progress of that on {@code out}).
     *
     * @throws IllegalStateException when PostgreSQL is missing and cannot be installed, or does not start
     */
    public static LocalPostgres start(PrintStream out) throws IOException, InterruptedException {
        Path bin = binaries().orElse(null);
        if (bin == null) {
            install(out);
            bin = binaries().orElseThrow(() -> new IllegalStateException(
                    "apt-get installed postgresql but there is no " + INSTALL_ROOT + "/<version>/bin/initdb"));
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("tally-postgres-");
        if (root) {
            var users = dir.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(dir, users.lookupPrincipalByName(SERVICE_USER));
        }
        LocalPostgres pg = new LocalPostgres(dir, bin, root, FreePort.pick());
        Runtime.getRuntime().addShutdownHook(pg.onExit);
        try {
            pg.initAndStart();
            return pg;
        } catch (IOException | InterruptedException | RuntimeException e) {
            try {
                pg.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/postgres?user=tally}: the cluster's default database. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=" + USER + "&sslmode=disable";
    }

    public int port() {
        return port;
    }

    /** The PostgreSQL version in use (the directory name under {@code /usr/lib/postgresql}, e.g. {@code 15}). */
    public String version() {
        return bin.getParent().getFileName().toString();
    }

    /** Stops the server ({@code pg_ctl stop -m fast}) and deletes its directory. */
    @Override
    public synchronized void close() throws IOException, InterruptedException {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting: this is the hook
        }
        try {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                run(pgCommand("pg_ctl", "stop", "-D", data.toString(), "-m", "fast", "-w", "-t", "60"));
            }
        } finally {
            Scratch.deleteQuietly(dir);
        }
    }

    private void closeOnExit() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("bench: could not stop PostgreSQL in " + dir + ": " + e);
        }
    }

    private void initAndStart() throws IOException, InterruptedException {
        run(pgCommand("initdb", "-D", data.toString(), "-A", "trust", "-U", USER, "--no-sync",
                "-E", "UTF8", "--locale=C"));
        // appended settings override initdb's; the file stays the service user's (only its content changes)
        Files.writeString(data.resolve("postgresql.conf"), String.join("\n", "",
                "# ./tally bench --baseline postgres",
                "listen_addresses = '127.0.0.1'",
                "port = " + port,
                "unix_socket_directories = '" + dir + "'",
                "max_connections = 200",
                "shared_buffers = 256MB",
                "synchronous_commit = off",
                ""), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        Path log = dir.resolve("postgres.log");
        try {
            run(pgCommand("pg_ctl", "start", "-D", data.toString(), "-l", log.toString(), "-w", "-t", "60"));
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "\n" + tail(log), e);
        }
    }

    /** {@code bin/<tool> args...}, through {@code runuser -u postgres --} when this JVM is root. */
    private List<String> pgCommand(String tool, String... args) {
        List<String> command = new ArrayList<>();
        if (asServiceUser) {
            command.addAll(List.of("runuser", "-u", SERVICE_USER, "--"));
        }
        command.add(bin.resolve(tool).toString());
        command.addAll(List.of(args));
        return command;
    }

    /** Runs a command in the cluster's directory (where the service user may be); its output goes into the exception. */
    private void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();
        if (exit != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + exit + ":\n" + output.strip());
        }
    }

    /** The highest-versioned {@code /usr/lib/postgresql/<version>/bin} that has initdb and pg_ctl. */
    public static Optional<Path> binaries() throws IOException {
        if (!Files.isDirectory(INSTALL_ROOT)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(INSTALL_ROOT)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparing(b -> versionKey(b.getParent().getFileName().toString())));
        }
    }

    /** {@code 9.6} → {@code 000009.000006.}, {@code 15} → {@code 000015.}: keys that sort versions numerically. */
    static String versionKey(String version) {
        StringBuilder key = new StringBuilder();
        for (String part : version.split("\\.")) {
            String digits = part.replaceAll("\\D", "");
            key.append(String.format("%06d.", digits.isEmpty() ? 0 : Long.parseLong(digits)));
        }
        return key.toString();
    }

    /** {@code apt-get install -y postgresql} (after {@code apt-get update} if the first try fails), as root only. */
    private static void install(PrintStream out) throws IOException, InterruptedException {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("PostgreSQL is not installed (no " + INSTALL_ROOT
                    + "/<version>/bin/initdb) and installing it needs root: run `apt-get install -y postgresql` as root");
        }
        out.println("bench: PostgreSQL is not installed; running apt-get install -y postgresql");
        if (apt(out, "install", "-y", "postgresql") != 0) {
            out.println("bench: apt-get install failed; running apt-get update and trying again");
            if (apt(out, "update") != 0 || apt(out, "install", "-y", "postgresql") != 0) {
                throw new IllegalStateException("apt-get install -y postgresql failed (output above)");
            }
        }
    }

    /** Runs {@code apt-get args...} non-interactively, its output copied to {@code out} as it comes. */
    private static int apt(PrintStream out, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("apt-get"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        out.println("bench: $ " + String.join(" ", command));
        Process p = pb.start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                out.println("  " + line);
            }
        }
        return p.waitFor();
    }

    /** The last lines of the server log, for an error message. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no server log: " + e + ")";
        }
    }
}
