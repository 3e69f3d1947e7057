package dev.tally.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class RequestAccountTest {
    /** A stand-in for the broker's Yammer meter as its JMX reporter shows it: a {@code Count} attribute. */
    public interface CounterMBean {
        long getCount();
    }

    public static final class Counter implements CounterMBean {
        long count;

        @Override
        public long getCount() {
            return count;
        }
    }

    @Test
    void perThousandVotesSumsEachTypesVersionsAndCountsAFetchOnceAsConsumerOrFollower() throws Exception {
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        Counter produce11 = register(server, "Produce", 11);
        Counter produce12 = register(server, "Produce", 12);
        Counter fetch = register(server, "Fetch", 17);
        Counter fetchConsumer = register(server, "FetchConsumer", 17);
        Counter endTxn = register(server, "EndTxn", 5);
        produce11.count = 40;
        fetch.count = 7;
        fetchConsumer.count = 7;
        endTxn.count = 3;
        RequestAccount account = new RequestAccount(server).start();

        produce11.count += 100;
        produce12.count += 50;
        fetch.count += 120;
        fetchConsumer.count += 120;

        assertThat(account.perThousandVotes(10_000)).containsExactly(Map.entry("Produce", 15.0),
                Map.entry("FetchConsumer", 12.0), Map.entry("total", 27.0));
    }

    @Test
    void aRunOfFewerThanAThousandVotesIsScaledUpToAThousand() throws Exception {
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        Counter produce = register(server, "Produce", 11);
        RequestAccount account = new RequestAccount(server).start();

        produce.count += 10;

        assertThat(account.perThousandVotes(500)).containsExactly(Map.entry("Produce", 20.0), Map.entry("total", 20.0));
    }

    private static Counter register(MBeanServer server, String request, int version) throws Exception {
        Counter counter = new Counter();
        server.registerMBean(counter, new ObjectName(
                "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=" + request + ",version=" + version));
        return counter;
    }
}
