package dev.tally.launcher.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A {@code ./tally} command in a child JVM on this one's class path, with the flags the {@code tally} script gives. */
final class ChildTally {
    private ChildTally() {}

    /**
     * @param heap   {@code -Xmx}, e.g. {@code 384m}
     * @param direct {@code -XX:MaxDirectMemorySize}
     */
    static ProcessBuilder command(String heap, String direct, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=" + direct,
                "-XX:+ExitOnOutOfMemoryError",
                // the launcher's own logging, as the script runs it: on a test class path log4j2-test.xml would win
                "-Dlog4j2.configurationFile=classpath:log4j2.xml",
                "-cp", System.getProperty("java.class.path"), "dev.tally.launcher.Tally"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }
}
