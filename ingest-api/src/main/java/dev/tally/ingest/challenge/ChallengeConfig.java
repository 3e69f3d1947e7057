package dev.tally.ingest.challenge;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Chooses the challenge verifier from configuration, once, at start; a bad value stops the service with a message
 * naming the variable rather than refusing every vote later.
 *
 * <ul>
 *   <li>{@code TALLY_TURNSTILE_SECRET} [unset]: set, tokens are checked with Cloudflare Turnstile, configured by
 *   <ul>
 *     <li>{@code TALLY_TURNSTILE_URL} [{@code https://challenges.cloudflare.com/turnstile/v0/siteverify}]:
 *         https, or http to a loopback host only (a local fake), so the secret never crosses a network in clear;</li>
 *     <li>{@code TALLY_CHALLENGE_HOSTNAMES} [required with the secret]: comma list of the hostnames our pages are
 *         served from; there is no safe default, a token from any hostname is a farmed token;</li>
 *     <li>{@code TALLY_CHALLENGE_ACTION} [{@code vote}]: the action the widget stamps on vote tokens.</li>
 *   </ul></li>
 *   <li>unset in the dev profile: {@link DevChallengeVerifier}, which passes the test token {@code dev-pass};</li>
 *   <li>unset in any other profile: every vote fails with {@value #UNCONFIGURED} - fail closed, because a
 *       forgotten secret must not quietly open the door to scripts.</li>
 * </ul>
 */
public final class ChallengeConfig {
    public static final String SECRET = "TALLY_TURNSTILE_SECRET";
    public static final String URL = "TALLY_TURNSTILE_URL";
    public static final String HOSTNAMES = "TALLY_CHALLENGE_HOSTNAMES";
    public static final String ACTION = "TALLY_CHALLENGE_ACTION";
    public static final String DEFAULT_ACTION = "vote";
    /** The reason of every verdict when no verifier is configured outside dev. */
    public static final String UNCONFIGURED = "no challenge verifier configured (TALLY_TURNSTILE_SECRET)";

    /** Turnstile's own rule for actions: up to 32 alphanumerics, {@code _} or {@code -}. */
    private static final Pattern ACTION_NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    /** A bare DNS name (or {@code localhost}): no scheme, port, path or wildcard. */
    private static final Pattern HOSTNAME = Pattern.compile(
            "(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]");

    private ChallengeConfig() {
    }

    /**
     * @throws Env.ConfigException naming the variable when a value cannot be used; the secret's value is never
     *                             part of a message
     */
    public static ChallengeVerifier from(Env env, Profile profile) {
        Optional<String> secret = env.secret(SECRET);
        if (secret.isEmpty()) {
            return profile.isDev() ? new DevChallengeVerifier(profile) : Unconfigured.INSTANCE;
        }
        return new TurnstileVerifier(url(env), secret.get(), hostnames(env), action(env));
    }

    private static URI url(Env env) {
        String text = env.string(URL, TurnstileVerifier.DEFAULT_SITEVERIFY_URL.toString());
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new Env.ConfigException(URL, text, "an absolute https URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null
                || !(scheme.equals("https")
                     || scheme.equals("http") && LOOPBACK.contains(uri.getHost().toLowerCase(Locale.ROOT)))) {
            throw new Env.ConfigException(URL, text,
                    "an absolute https URL without credentials (http only to localhost or 127.0.0.1)");
        }
        return uri;
    }

    private static List<String> hostnames(Env env) {
        String text = env.get(HOSTNAMES).orElseThrow(() -> new Env.ConfigException(HOSTNAMES
                + " is required when " + SECRET + " is set: a comma list of the hostnames the vote page is "
                + "served from, such as tally.example,www.tally.example"));
        List<String> names = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String name = part.strip().toLowerCase(Locale.ROOT);
            if (!HOSTNAME.matcher(name).matches()) {
                throw new Env.ConfigException(HOSTNAMES, text,
                        "a comma list of bare hostnames such as tally.example,www.tally.example (no scheme, port, "
                                + "path, wildcard or empty entry); '" + part.strip() + "' is not one");
            }
            names.add(name);
        }
        return names;
    }

    private static String action(Env env) {
        String action = env.string(ACTION, DEFAULT_ACTION);
        if (!ACTION_NAME.matcher(action).matches()) {
            throw new Env.ConfigException(ACTION, action, "up to 32 letters, digits, _ or - (Turnstile's rule)");
        }
        return action;
    }

    /** Outside dev without a secret: nothing passes. */
    static final class Unconfigured implements ChallengeVerifier {
        static final Unconfigured INSTANCE = new Unconfigured();

        @Override
        public Verdict verify(String token, InetAddress clientAddress) {
            return Verdict.fail(UNCONFIGURED);
        }

        @Override
        public String toString() {
            return "UnconfiguredChallengeVerifier[every vote fails]";
        }
    }
}
