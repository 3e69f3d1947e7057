package dev.tally.common.ranking;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The one way a request names a sort, a window or a policy: exactly, or refused with every name it could have used. */
final class WireNames {
    private WireNames() {}

    static <E extends Enum<E>> E parse(E[] values, Function<E, String> wireName, String what, String text) {
        for (E e : values) {
            if (wireName.apply(e).equals(text)) {
                return e;
            }
        }
        throw new IllegalArgumentException(what + " must be one of "
                + Arrays.stream(values).map(wireName).collect(Collectors.joining(", ")) + ", got '" + text + "'");
    }
}
