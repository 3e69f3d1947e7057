package dev.tally.ingest;

import java.util.Locale;

/**
 * Whether an {@code Accept} header admits {@code text/event-stream} (RFC 9110 §12.5.1): no header, or a media
 * range {@code text/event-stream}, {@code text/*} or {@code *}{@code /*} with a quality above 0. So
 * {@code curl -N} ({@code Accept: *}{@code /*}) and EventSource both get the stream; only an Accept that
 * excludes it is refused.
 */
final class EventStreamAccept {
    private EventStreamAccept() {}

    static boolean admits(String accept) {
        if (accept == null || accept.isBlank()) {
            return true;
        }
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String type = parts[0].strip().toLowerCase(Locale.ROOT);
            if ((type.equals("text/event-stream") || type.equals("text/*") || type.equals("*/*")) && quality(parts) > 0) {
                return true;
            }
        }
        return false;
    }

    /** The range's {@code q} parameter (1 when absent; 0 when unreadable, which excludes it). */
    private static double quality(String[] parts) {
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].strip();
            if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
                try {
                    return Double.parseDouble(p.substring(2).strip());
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 1;
    }
}
