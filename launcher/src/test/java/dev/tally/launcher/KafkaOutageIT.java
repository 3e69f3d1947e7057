package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away under a running Tally: writes are refused with 503 within the sync timeout (never
 * a 200 or 202 that could be lost), reads of the local views go on, and once the broker is back every
 * vote acknowledged before the outage is counted, and so is every vote answered 202.
 */
class KafkaOutageIT {
    private final String item = "outage-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void writesGet503QuicklyWhileKafkaIsDownAndNothingAcknowledgedIsLost() throws Exception {
        TallyNode node = WalkingSkeletonIT.startAll(WalkingSkeletonIT.env(SharedBroker.dataDir("node"))
                .with("TALLY_SYNC_TIMEOUT", "2s"));
        try {
            TallyClient client = new TallyClient(node.httpPort());
            int acknowledged = 0;
            for (int i = 0; i < 20; i++) {
                assertThat(client.vote("before" + i, item, 1, "set").status()).isEqualTo(200);
                acknowledged++;
            }

            SharedBroker.stop();
            List<Long> refusalMillis = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    long t0 = System.nanoTime();
                    var refused = client.vote("during" + i, item, 1, "set");
                    refusalMillis.add((System.nanoTime() - t0) / 1_000_000);
                    assertThat(refused.status()).as("no 200/202 while Kafka is down: %s", refused.body()).isEqualTo(503);
                    assertThat(refused.body().get("type").asText()).endsWith("/kafka-unavailable");
                    assertThat(refused.header("Retry-After")).isNotBlank();
                }
                System.out.println("KafkaOutageIT: 503 answered after " + refusalMillis + " ms");
                assertThat(client.get(null, "/healthz").status()).isEqualTo(200);
            } finally {
                SharedBroker.restart();
            }

            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            int status = 0;
            while (System.nanoTime() < deadline) {
                var after = client.vote("after", item, 1, "set");
                status = after.status();
                if (status == 200 || status == 202) {
                    acknowledged++; // 200 applied, or 202: durably in Kafka and applied later
                    break;
                }
                Thread.sleep(500);
            }
            assertThat(status).as("writes work again after the broker is back").isIn(200, 202);
            long counted = 0;
            while (System.nanoTime() < deadline) {
                var read = client.get(null, "/v1/votes/post/" + item);
                if (read.status() == 200) {
                    counted = read.body().get("upvotes").asLong();
                    if (counted == acknowledged) {
                        break;
                    }
                }
                Thread.sleep(250);
            }
            assertThat(counted).as("every acknowledged vote is counted, none twice").isEqualTo(acknowledged);
        } finally {
            node.close();
        }
    }
}
