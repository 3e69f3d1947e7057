package dev.tally.schemas;

import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/** A serde in single-object encoding: which writer schema it writes, and which it reads. */
public interface Fingerprinted {
    /** The schema of every record it writes. */
    Schema writtenSchema();

    /** The CRC-64-AVRO fingerprint in the header of every record it writes. */
    default long writtenFingerprint() {
        return SchemaNormalization.parsingFingerprint64(writtenSchema());
    }

    /** The fingerprints of every writer schema it decodes. */
    Set<Long> readableFingerprints();
}
