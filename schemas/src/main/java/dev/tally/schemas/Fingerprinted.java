package dev.tally.schemas;

import java.util.Set;

/** A serde in single-object encoding: which writer schema it writes, and which it reads. */
public interface Fingerprinted {
    /** The CRC-64-AVRO fingerprint in the header of every record it writes. */
    long writtenFingerprint();

    /** The fingerprints of every writer schema it decodes. */
    Set<Long> readableFingerprints();
}
