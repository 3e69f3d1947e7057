package dev.tally.common;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed access to configuration variables ({@code TALLY_*}), from the process environment overlaid with
 * command-line overrides. Every parse error names the variable and what it expects.
 */
public final class Env {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private final Map<String, String> values;
    private final Set<String> read = ConcurrentHashMap.newKeySet();

    private Env(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** Every variable name looked up so far: lets a test prove a deployment sets only variables the code reads. */
    public Set<String> namesRead() {
        return Set.copyOf(read);
    }

    public static Env of(Map<String, String> values) {
        return new Env(values);
    }

    public static Env system() {
        return new Env(System.getenv());
    }

    /** A copy of this environment with some variables replaced. */
    public Env with(Map<String, String> overrides) {
        Map<String, String> merged = new HashMap<>(values);
        merged.putAll(overrides);
        return new Env(merged);
    }

    public Env with(String name, String value) {
        return with(Map.of(name, value));
    }

    /** This environment, or a copy with {@code name} set to {@code value} when it is unset or blank. */
    public Env withDefault(String name, String value) {
        String v = values.get(name);
        return v == null || v.isBlank() ? with(name, value) : this;
    }

    /** Every variable this environment holds, read or not: for families of variables such as {@code TALLY_KAFKA_*}. */
    public Set<String> names() {
        return values.keySet();
    }

    /**
     * A secret, from the variable {@code name} or from the file the variable {@code name_FILE} names (the convention
     * of container images, where secrets arrive as files), without a trailing line break. Setting both is an error.
     * No message ever holds the value.
     */
    public Optional<String> secret(String name) {
        Optional<String> value = get(name);
        Optional<String> file = get(name + "_FILE");
        if (value.isPresent() && file.isPresent()) {
            throw new ConfigException(name + " and " + name + "_FILE are both set: set one");
        }
        return file.map(f -> {
            try {
                String text = java.nio.file.Files.readString(Path.of(f)).strip();
                if (text.isEmpty()) {
                    throw new ConfigException(name + "_FILE=" + f + " is empty");
                }
                return text;
            } catch (java.io.IOException e) {
                throw new ConfigException(name + "_FILE=" + f + " cannot be read: " + e.getClass().getSimpleName());
            }
        }).or(() -> value);
    }

    public Optional<String> get(String name) {
        read.add(name);
        String v = values.get(name);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    public String string(String name, String dflt) {
        return get(name).orElse(dflt);
    }

    public int integer(String name, int dflt, int min, int max) {
        return get(name).map(v -> {
            try {
                int n = Integer.parseInt(v);
                if (n < min || n > max) {
                    throw new ConfigException(name, v, "an integer from " + min + " to " + max);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new ConfigException(name, v, "an integer from " + min + " to " + max);
            }
        }).orElse(dflt);
    }

    public double decimal(String name, double dflt, double min, double max) {
        return get(name).map(v -> {
            try {
                double n = Double.parseDouble(v);
                if (!(n >= min && n <= max)) {
                    throw new ConfigException(name, v, "a number from " + min + " to " + max);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new ConfigException(name, v, "a number from " + min + " to " + max);
            }
        }).orElse(dflt);
    }

    public boolean bool(String name, boolean dflt) {
        return get(name).map(v -> switch (v.toLowerCase()) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new ConfigException(name, v, "true or false");
        }).orElse(dflt);
    }

    /** Durations are written {@code 250ms}, {@code 2s}, {@code 5m}, {@code 24h} or {@code 7d}. */
    public Duration duration(String name, Duration dflt) {
        return get(name).map(v -> parseDuration(name, v)).orElse(dflt);
    }

    /** A duration from {@code min} to {@code max}, both included; anything else names the variable and the range. */
    public Duration duration(String name, Duration dflt, Duration min, Duration max) {
        Optional<String> text = get(name);
        Duration d = text.map(v -> parseDuration(name, v)).orElse(dflt);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new ConfigException(name, text.orElse(show(d)), "a duration from " + show(min) + " to " + show(max));
        }
        return d;
    }

    /** A duration the way the variables are written: 250ms, 2s, 5m, 24h, 7d. */
    static String show(Duration d) {
        if (d.toMillis() % 1000 != 0 || d.isZero()) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        return s % 86_400 == 0 ? s / 86_400 + "d" : s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    public Path path(String name, String dflt) {
        return Path.of(string(name, dflt)).toAbsolutePath().normalize();
    }

    static Duration parseDuration(String name, String text) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new ConfigException(name, text, "a duration such as 250ms, 2s, 5m, 24h or 7d");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    /** A configuration value that cannot be used; the message names the variable. */
    public static final class ConfigException extends IllegalArgumentException {
        public ConfigException(String name, String value, String expected) {
            super(name + "=" + value + " is invalid: expected " + expected);
        }

        public ConfigException(String message) {
            super(message);
        }
    }
}
