package dev.tally.launcher.bench;

import org.HdrHistogram.Histogram;

/** A latency histogram in microseconds (1 µs to 10 min, 3 significant digits), safe for several writers. */
public final class Latencies {
    private final Histogram histogram = new Histogram(600_000_000L, 3);

    public synchronized void recordNanos(long nanos) {
        histogram.recordValue(Math.max(1, Math.min(nanos / 1_000, histogram.getHighestTrackableValue())));
    }

    /** Adds another histogram's samples to this one. */
    public void add(Latencies other) {
        org.HdrHistogram.Histogram copy;
        synchronized (other) {
            copy = other.histogram.copy();
        }
        synchronized (this) {
            histogram.add(copy);
        }
    }

    public synchronized long count() {
        return histogram.getTotalCount();
    }

    /** The percentile in milliseconds (one decimal), or null without samples. */
    public synchronized Double percentileMillis(double percentile) {
        if (histogram.getTotalCount() == 0) {
            return null;
        }
        return Math.round(histogram.getValueAtPercentile(percentile) / 100.0) / 10.0;
    }
}
