package dev.tally.launcher;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine;

/** Runs a command of the CLI in this JVM and keeps what it printed (echoing stdout, so a failing test shows it). */
final class CliRun {
    private CliRun() {}

    record Output(int exit, String text, String err) {
        List<String> lines() {
            return text.lines().toList();
        }

        String last() {
            List<String> lines = lines();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }
    }

    /** One command at a time: {@code System.out} and {@code System.err} are the process's. */
    static synchronized Output run(Object command, String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        var stdout = new ByteArrayOutputStream();
        var stderr = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
            exit = new CommandLine(command).execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String text = stdout.toString(StandardCharsets.UTF_8);
        System.out.print(text);
        return new Output(exit, text, stderr.toString(StandardCharsets.UTF_8));
    }
}
