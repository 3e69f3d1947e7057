package dev.tally.common;

/**
 * {@code TALLY_PROFILE} [dev]. The dev profile binds 127.0.0.1 only, trusts {@code X-Tally-User}, and
 * generates its secrets; any other profile refuses to start without them.
 */
public record Profile(String name) {
    public Profile {
        if (name == null || !name.matches("[a-z][a-z0-9-]{0,31}")) {
            throw new Env.ConfigException("TALLY_PROFILE", String.valueOf(name), "a lowercase name such as dev or prod");
        }
    }

    public static Profile from(Env env) {
        return new Profile(env.string("TALLY_PROFILE", "dev"));
    }

    public boolean isDev() {
        return name.equals("dev");
    }
}
