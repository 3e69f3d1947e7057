package dev.tally.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/** The version the build stamped into {@code version.properties}: what {@code ./tally --version} prints. */
public final class TallyVersion implements CommandLine.IVersionProvider {

    /** The project's version, e.g. {@code 0.1.0}. */
    public static String version() {
        try (InputStream in = TallyVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the launcher's class path: rebuild it");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {"tally " + version()};
    }
}
