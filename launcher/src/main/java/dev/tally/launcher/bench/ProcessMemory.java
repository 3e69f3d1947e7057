package dev.tally.launcher.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A process's resident memory as Linux reports it in {@code /proc/<pid>/status}: {@code VmRSS} and its parts
 * {@code RssAnon} (the heap, RocksDB's and the JVM's native memory), {@code RssFile} (memory-mapped files: the
 * broker's indexes, the class-data archive) and {@code RssShmem}, in kB.
 */
public final class ProcessMemory {
    private ProcessMemory() {
    }

    /** The memory lines of {@code /proc/<process>/status} ({@code process} a pid or {@code self}), in kB. */
    public static Map<String, Long> kb(String process) throws IOException {
        Map<String, Long> kb = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", process, "status"))) {
            if (line.startsWith("VmRSS:") || line.startsWith("Rss")) {
                kb.put(line.substring(0, line.indexOf(':')), Long.parseLong(line.replaceAll("[^0-9]", "")));
            }
        }
        return kb;
    }

    /** This process's resident size in MB, or -1 where {@code /proc} does not say (not Linux). */
    public static long selfRssMb() {
        try {
            return kb("self").getOrDefault("VmRSS", -1024L) / 1024;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
