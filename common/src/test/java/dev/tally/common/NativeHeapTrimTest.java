package dev.tally.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import sun.misc.Unsafe;

class NativeHeapTrimTest {
    private static final Pattern FREED = Pattern.compile("\\(-(\\d+)K\\)");

    @Test
    void shouldGiveBackWhatMallocKeptAfterItWasFreed() throws Exception {
        Unsafe unsafe = unsafe();
        // 64 MB in 4 kB blocks, as RocksDB allocates its blocks, each written so it is resident; after every 64 a small
        // block that stays, so free() cannot give the freed runs back from the top of a heap and they stay with malloc
        int blocks = 16_384;
        long[] addresses = new long[blocks];
        long[] pins = new long[blocks / 64];
        for (int i = 0; i < blocks; i++) {
            addresses[i] = unsafe.allocateMemory(4096);
            unsafe.setMemory(addresses[i], 4096, (byte) 1);
            if (i % 64 == 63) {
                pins[i / 64] = unsafe.allocateMemory(64);
            }
        }
        try {
            for (long address : addresses) {
                unsafe.freeMemory(address);
            }

            String report = NativeHeapTrim.trimNow();

            Matcher freed = FREED.matcher(report);
            assertThat(freed.find()).as("a report of what was given back: %s", report).isTrue();
            assertThat(Long.parseLong(freed.group(1))).as(report).isGreaterThan(48 * 1024);
        } finally {
            for (long pin : pins) {
                unsafe.freeMemory(pin);
            }
        }
    }

    @Test
    void shouldTrimEveryTenSecondsUnlessTurnedOff() {
        assertThat(NativeHeapTrim.interval(Env.of(Map.of()))).isEqualTo(Duration.ofSeconds(10));
        assertThat(NativeHeapTrim.interval(Env.of(Map.of("TALLY_NATIVE_TRIM_INTERVAL", "0s")))).isZero();
        assertThatThrownBy(() -> NativeHeapTrim.interval(Env.of(Map.of("TALLY_NATIVE_TRIM_INTERVAL", "2h"))))
                .isInstanceOf(Env.ConfigException.class).hasMessageContaining("TALLY_NATIVE_TRIM_INTERVAL=2h");
        NativeHeapTrim.start(Duration.ZERO).close(); // off: nothing scheduled, nothing to stop
    }

    private static Unsafe unsafe() throws ReflectiveOperationException {
        Field f = Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (Unsafe) f.get(null);
    }
}
