package dev.tally.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortTest {
    @Test
    void picksPortsAServerCanBindBelowTheKernelsEphemeralRange() throws Exception {
        int firstEphemeral = FreePort.firstEphemeral();
        Set<Integer> picked = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = FreePort.pick();
            picked.add(port);
            if (firstEphemeral - FreePort.LOWEST >= 1_000) { // Linux: where bind(0) and outgoing connections never land
                assertThat(port).isBetween(FreePort.LOWEST, firstEphemeral - 1);
            }
            try (ServerSocket server = new ServerSocket()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
        assertThat(picked).as("random, not one port over and over").hasSizeGreaterThan(40);
    }

    @Test
    void aPortAServerListensOnIsNotAvailableWhicheverAddressItListensOn() throws Exception {
        try (ServerSocket loopback = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ServerSocket wildcard = new ServerSocket(0)) {
            assertThat(FreePort.available(loopback.getLocalPort())).isFalse();
            assertThat(FreePort.available(wildcard.getLocalPort())).isFalse();
        }
    }
}
