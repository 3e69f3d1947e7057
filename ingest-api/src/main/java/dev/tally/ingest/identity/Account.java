package dev.tally.ingest.identity;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A caller proven by a verified JWT.
 *
 * @param subject        the {@code sub} claim: the account id, 1 to 128 visible ASCII characters; hashed as
 *                       {@code user:<subject>} before it goes anywhere
 * @param accountCreated the optional {@code acct_created} claim (epoch seconds): lets new accounts weigh less
 */
public record Account(String subject, Optional<Instant> accountCreated) {
    public Account {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(accountCreated, "accountCreated");
        if (!JwtVerifier.isValidSubject(subject)) {
            throw new IllegalArgumentException("subject must be 1 to 128 visible ASCII characters");
        }
    }
}
