package dev.tally.webhooks;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import dev.tally.webhooks.AddressGuard.Cidr;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;

/**
 * The webhook sender's settings, and the rule for a receiver's URL.
 *
 * @param enabled  {@code TALLY_WEBHOOKS}: a node running the count-projector sends webhooks
 * @param allowed  {@code TALLY_WEBHOOK_ALLOW_NETWORKS}: networks a receiver may be on although private or reserved;
 *                 the dev profile adds loopback
 * @param dev      the dev profile: {@code http://} receivers allowed on loopback, so the quickstart works
 */
public record WebhooksConfig(boolean enabled, List<Cidr> allowed, boolean dev) {
    public static final int MAX_URL_LENGTH = 2000;

    public static WebhooksConfig from(Env env, Profile profile) {
        List<Cidr> allowed = new ArrayList<>();
        String networks = env.string("TALLY_WEBHOOK_ALLOW_NETWORKS", "");
        for (String n : networks.split(",")) {
            if (!n.isBlank()) {
                try {
                    allowed.add(Cidr.parse(n));
                } catch (IllegalArgumentException e) {
                    throw new Env.ConfigException("TALLY_WEBHOOK_ALLOW_NETWORKS", networks,
                            "comma-separated networks such as 10.1.0.0/16,fd00::/8 (" + e.getMessage() + ")");
                }
            }
        }
        if (profile.isDev()) {
            allowed.add(Cidr.parse("127.0.0.0/8"));
            allowed.add(Cidr.parse("::1/128"));
        }
        return new WebhooksConfig(env.bool("TALLY_WEBHOOKS", true), List.copyOf(allowed), profile.isDev());
    }

    public AddressGuard guard(Executor executor) {
        return new AddressGuard(allowed, executor);
    }

    /**
     * The receiver URL, checked: absolute, {@code https} ({@code http} only in the dev profile, to loopback), no user
     * information or fragment, at most {@value #MAX_URL_LENGTH} characters, and a host that is an address webhooks may
     * reach when it is written as one (a name is checked each time it is resolved, when sending).
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public URI checkUrl(String url) {
        if (url == null || url.isBlank() || url.length() > MAX_URL_LENGTH) {
            throw new IllegalArgumentException("'url' must be an absolute https URL of at most " + MAX_URL_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'url' is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost();
        if (!uri.isAbsolute() || host == null || host.isEmpty()) {
            throw new IllegalArgumentException("'url' must be an absolute URL with a host, such as https://example.com/hooks");
        }
        if (uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("'url' may not carry user information or a fragment");
        }
        boolean loopbackHost = host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]");
        if (!scheme.equals("https") && !(dev && scheme.equals("http") && loopbackHost)) {
            throw new IllegalArgumentException(dev ? "'url' must be https (http only to 127.0.0.1, localhost or [::1] in the dev profile)"
                    : "'url' must be https");
        }
        String literal = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (literal.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
            try {
                String why = guard(Runnable::run).refusal(InetAddress.getByName(literal));
                if (why != null) {
                    throw new IllegalArgumentException("'url': " + why);
                }
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("'url' has an unreadable address: " + host);
            }
        }
        return uri;
    }
}
