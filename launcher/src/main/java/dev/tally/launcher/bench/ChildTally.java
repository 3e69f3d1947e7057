package dev.tally.launcher.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code ./tally} command in a child JVM on this one's class path, with the flags the {@code tally} script gives,
 * including the node's class-data archive when the script found one ({@code TALLY_NODE_ARCHIVE}).
 */
public final class ChildTally {
    private ChildTally() {}

    /**
     * @param heapMb {@code -Xmx} in MB; as the script does, the heap starts at half of it and its young generation is
     *               fixed at a third
     * @param direct {@code -XX:MaxDirectMemorySize}
     */
    public static ProcessBuilder command(int heapMb, String direct, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms" + heapMb / 2 + "m", "-Xmn" + heapMb / 3 + "m", "-Xmx" + heapMb + "m", "-XX:+UseSerialGC",
                "-XX:MaxDirectMemorySize=" + direct,
                "-XX:+ExitOnOutOfMemoryError",
                // the launcher's own logging, as the script runs it: on a test class path log4j2-test.xml would win
                "-Dlog4j2.configurationFile=classpath:log4j2.xml",
                "-cp", System.getProperty("java.class.path"), "dev.tally.launcher.Tally"));
        Path archive = nodeArchive();
        if (archive != null) {
            command.addAll(1, List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off",
                    "-Xlog:cds+dynamic=off"));
        }
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    /** The class-data archive a node of this build wrote ({@code TALLY_NODE_ARCHIVE}, set by the script), or null. */
    static Path nodeArchive() {
        String archive = System.getenv("TALLY_NODE_ARCHIVE");
        return archive != null && Files.isRegularFile(Path.of(archive)) ? Path.of(archive) : null;
    }
}
