package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogAuditTest {

    @Test
    void everyAcknowledgedVoteOnceIsExact() {
        LogAudit audit = new LogAudit(12);
        audit.accept("v1", "post:a", 0, 1, 0, 10);
        audit.accept("v2", "post:a", 0, -1, 3, 7);
        audit.accept("v3", "post:b", 0, 1, 0, 11);
        assertThat(audit.tallies(3)).isEqualTo(new LogAudit.Tallies(3, 0, 0));
        assertThat(audit.totals().get("post:a")).containsExactly(1, 1);
        assertThat(audit.required().get("post:a")[0]).isEqualTo(10);
        assertThat(audit.required().get("post:a")[3]).isEqualTo(7);
        assertThat(audit.required().get("post:a")[1]).isEqualTo(-1);
    }

    @Test
    void aMissingEventIsLostAndARepeatedOneIsDoubleCounted() {
        LogAudit audit = new LogAudit(12);
        audit.accept("v1", "post:a", 0, 1, 0, 1);
        audit.accept("v1", "post:a", 0, 1, 0, 2); // the same pair applied twice
        audit.accept("v2", "post:a", 0, 1, 0, 3);
        assertThat(audit.tallies(3)).isEqualTo(new LogAudit.Tallies(2, 1, 1));
        assertThat(audit.totals().get("post:a")[0]).isEqualTo(3);
    }

    @Test
    void growsPastItsInitialCapacity() {
        LogAudit audit = new LogAudit(1);
        for (int i = 0; i < 200_000; i++) {
            audit.accept(Workload.voter(i), "post:i" + (i % 1000), 0, 1, 0, i);
        }
        assertThat(audit.events()).isEqualTo(200_000);
        assertThat(audit.tallies(200_000)).isEqualTo(new LogAudit.Tallies(200_000, 0, 0));
    }
}
