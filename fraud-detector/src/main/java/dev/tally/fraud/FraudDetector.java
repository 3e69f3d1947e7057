package dev.tally.fraud;

import dev.tally.common.Runtime;
import dev.tally.common.StreamsService;

/** The running fraud-detector Streams application. */
public final class FraudDetector {
    private FraudDetector() {}

    public static StreamsService start(Runtime runtime, FraudDetectorConfig config) {
        var props = runtime.kafka().streamsProps(config.applicationId(), runtime.stateDir(config.applicationId()),
                config.commitInterval(), null);
        return new StreamsService("fraud-detector", FraudTopology.build(config), props).start(runtime.kafka());
    }
}
