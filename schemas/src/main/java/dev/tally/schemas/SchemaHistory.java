package dev.tally.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.message.SchemaStore;

/**
 * Every schema version a Tally topic has ever carried, read from {@code avro-history/<Name>/vN.avsc}
 * on the classpath (listed in {@code avro-history/index.txt}). Decoders resolve old records through it,
 * and the compatibility gate checks the current schemas against it.
 */
public final class SchemaHistory {
    private static final String ROOT = "avro-history/";
    private static final Map<String, List<Schema>> VERSIONS = load();
    private static final SchemaStore.Cache STORE = new SchemaStore.Cache();

    static {
        VERSIONS.values().forEach(list -> list.forEach(STORE::addSchema));
    }

    private SchemaHistory() {}

    /** Resolves a single-object fingerprint to any recorded version. */
    public static SchemaStore store() {
        return STORE;
    }

    /** Recorded versions of a record, oldest first, by its full name (e.g. {@code dev.tally.schema.VoteEvent}). */
    public static List<Schema> versions(String fullName) {
        return VERSIONS.getOrDefault(fullName, List.of());
    }

    public static Map<String, List<Schema>> all() {
        return VERSIONS;
    }

    private static Map<String, List<Schema>> load() {
        Map<String, List<Schema>> out = new TreeMap<>();
        for (String line : read(ROOT + "index.txt").split("\n")) {
            String entry = line.strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            Schema schema = new Schema.Parser().parse(read(ROOT + entry));
            String dir = entry.substring(0, entry.indexOf('/'));
            if (!dir.equals(schema.getFullName())) {
                throw new IllegalStateException("schema history file " + entry + " holds " + schema.getFullName());
            }
            out.computeIfAbsent(schema.getFullName(), k -> new ArrayList<>()).add(schema);
        }
        out.replaceAll((k, v) -> Collections.unmodifiableList(v));
        return Collections.unmodifiableMap(out);
    }

    private static String read(String resource) {
        try (InputStream in = SchemaHistory.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing schema history resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
    }
}
