package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The per-voter window is exact across API instances: the voter's partition decides, not the API. */
class VoterLimitsIT {

    @Test
    void exactlySixtyOfSixtyFiveRapidVotesFromOneVoterThroughTwoApisAreAccepted() throws Exception {
        TallyNode a = WalkingSkeletonIT.startAll(ReadSideIT.env("node", 0));
        TallyNode b = WalkingSkeletonIT.startAll(ReadSideIT.env("node-b", 1));
        try {
            TallyClient[] apis = {new TallyClient(a.httpPort()), new TallyClient(b.httpPort())};
            String voter = "limited-" + UUID.randomUUID();
            int accepted = 0;
            int limited = 0;
            for (int i = 0; i < 65; i++) {
                var r = apis[i % 2].vote(voter, "limit-" + i + "-" + voter.substring(8, 16), 1, "set");
                if (r.status() == 200) {
                    accepted++;
                } else {
                    assertThat(r.status()).as(r.body().toString()).isEqualTo(429);
                    assertThat(r.body().get("type").asText()).endsWith("/rate-limited");
                    assertThat(Integer.parseInt(r.header("Retry-After"))).isBetween(1, 60);
                    limited++;
                }
            }
            assertThat(accepted).isEqualTo(60);
            assertThat(limited).isEqualTo(5);
        } finally {
            b.close();
            a.close();
        }
    }
}
