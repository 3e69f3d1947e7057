package dev.tally.launcher.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removing the bench's throwaway scratch directories. */
public final class Scratch {
    private Scratch() {}

    /** Deletes the directory and all in it, as far as it can; says so on stderr when it cannot. */
    public static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("bench: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
