package dev.tally.launcher;

import dev.tally.launcher.bench.LocalPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Tests that need a program Maven cannot bring (a browser, a PostgreSQL server), as JUnit conditions:
 * {@code @ExtendWith(RequiredTools.Chromium.class)}. Without the program such a test is skipped — reported as
 * skipped, with one line naming the Debian packages to install — so {@code mvn -B verify} passes on a machine
 * with only Java and Maven. With {@code CI=true} in the environment (as {@code .ci/run}, which installs them,
 * sets it, and as CI services do) a missing program fails the test instead, so CI never skips one unnoticed.
 */
public abstract class RequiredTools implements ExecutionCondition {
    private final String what;
    private final String packages;

    RequiredTools(String what, String packages) {
        this.what = what;
        this.packages = packages;
    }

    /** Whether the program is there. */
    abstract boolean installed();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (installed()) {
            return ConditionEvaluationResult.enabled(what + " is installed");
        }
        String test = context.getRequiredTestClass().getSimpleName();
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new IllegalStateException(test + " needs " + what + ", and with CI=true a missing program fails"
                    + " the test instead of skipping it: apt-get install -y " + packages);
        }
        String line = test + " skipped: it needs " + what + " (apt-get install -y " + packages + ")";
        if (context.getTestMethod().isEmpty()) {
            System.err.println(line); // once per class
        }
        return ConditionEvaluationResult.disabled(line);
    }

    /** Debian's headless Chromium and its chromedriver. */
    public static final class Chromium extends RequiredTools {
        public static final Path BROWSER = Path.of("/usr/bin/chromium");
        public static final Path DRIVER = Path.of("/usr/bin/chromedriver");

        public Chromium() {
            super("Debian's headless Chromium (" + BROWSER + " and " + DRIVER + ")", "chromium chromium-driver");
        }

        @Override
        boolean installed() {
            return Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
        }
    }

    /** PostgreSQL's server binaries, which the bench's baseline starts a throwaway cluster with. */
    public static final class PostgresServer extends RequiredTools {
        public PostgresServer() {
            super("PostgreSQL's server binaries (/usr/lib/postgresql/<version>/bin)", "postgresql");
        }

        @Override
        boolean installed() {
            try {
                return LocalPostgres.binaries().isPresent();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
