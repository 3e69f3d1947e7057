package dev.tally.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventStreamAcceptTest {

    @ParameterizedTest(name = "Accept: {0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "NONE", value = {
            "NONE | true",
            "*/* | true",                                   // curl -N
            "text/event-stream | true",                     // EventSource
            "text/* | true",
            "TEXT/Event-Stream | true",
            "application/json, text/event-stream;q=0.5 | true",
            "text/html,application/xhtml+xml,*/*;q=0.8 | true", // a browser navigating to the URL
            "application/json | false",
            "text/event-stream;q=0 | false",
            "text/event-stream;q=0, */*;q=0 | false",
            "text/event-stream;q=x | false",
            "text/event-stream;q= | true",                // an empty parameter is not a q
            "text/event-stream;Q=0.1 | true",
            "text/event-stream;x=0 | true",               // another parameter
            "text/event-stream;qz0 | true",
            "image/png, text/html | false"})
    void anAcceptThatAdmitsTheStreamGetsIt(String accept, boolean admitted) {
        assertThat(EventStreamAccept.admits(accept)).isEqualTo(admitted);
    }
}
