package dev.tally.ingest.ops;

import dev.tally.common.Env;
import dev.tally.common.Profile;
import dev.tally.common.Secrets;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds a value of any type the ingest API's wiring asks for, without Kafka: interfaces become inert
 * proxies (never called while only the route table is read), configuration comes from a dev-profile
 * {@link Env}, and any other class is made through its {@code from(...)} factory or a public constructor
 * whose parameters can be built the same way.
 *
 * <p>Why reflection: the test that compares the route table with the OpenAPI document must build the real
 * {@code IngestApi} and should not break each time {@code IngestApi.Deps} gains or changes a component.
 */
final class StandIns {
    static final Env ENV = Env.of(Map.of("TALLY_HTTP_PORT", "0"));
    private static final int MAX_DEPTH = 6;

    private StandIns() {}

    /** A value of {@code type}, built from stand-ins all the way down. */
    static <T> T of(Class<T> type) {
        return type.cast(make(type, 0));
    }

    private static Object make(Class<?> type, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalStateException("stand-ins nest deeper than " + MAX_DEPTH + " at " + type.getName());
        }
        Object simple = simple(type);
        if (simple != null) {
            return simple;
        }
        if (type.isInterface()) {
            return inert(type);
        }
        List<Executable> ways = new ArrayList<>();
        Arrays.stream(type.getMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers()) && m.getName().equals("from") && m.getReturnType() == type)
                .sorted(Comparator.comparingInt(Method::getParameterCount))
                .forEach(ways::add);
        Arrays.stream(type.getConstructors()).sorted(Comparator.comparingInt(Constructor::getParameterCount)).forEach(ways::add);
        List<String> failures = new ArrayList<>();
        for (Executable way : ways) {
            try {
                Object[] args = new Object[way.getParameterCount()];
                for (int i = 0; i < args.length; i++) {
                    args[i] = make(way.getParameterTypes()[i], depth + 1);
                }
                return way instanceof Method m ? m.invoke(null, args) : ((Constructor<?>) way).newInstance(args);
            } catch (ReflectiveOperationException | RuntimeException e) {
                Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
                failures.add(way + ": " + cause);
            }
        }
        throw new IllegalStateException("no stand-in for " + type.getName() + "; tried " + failures
                + " — teach StandIns how to build it");
    }

    private static Object simple(Class<?> type) {
        if (type == Env.class) {
            return ENV;
        }
        if (type == Profile.class) {
            return Profile.from(ENV);
        }
        if (type == Secrets.class) {
            return Secrets.of("stand-in-secret-0123456789abcdef0123456789");
        }
        if (type == String.class) {
            return "stand-in-admin-token-0123456789";
        }
        if (type == Duration.class) {
            return Duration.ofSeconds(1);
        }
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type == Set.class) {
            return Set.of();
        }
        if (type == List.class) {
            return List.of();
        }
        if (type == Map.class) {
            return Map.of();
        }
        if (type == boolean.class || type == Boolean.class) {
            return false;
        }
        if (type == int.class || type == Integer.class) {
            return 0;
        }
        if (type == long.class || type == Long.class) {
            return 0L;
        }
        if (type == double.class || type == Double.class) {
            return 0.0;
        }
        return null;
    }

    /** An implementation that answers every call with a zero value: enough to build handlers, not to serve. */
    private static Object inert(Class<?> type) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "toString":
                    return "stand-in " + type.getSimpleName();
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                default:
                    Class<?> r = method.getReturnType();
                    if (r == void.class) {
                        return null;
                    }
                    if (r == Optional.class) {
                        return Optional.empty();
                    }
                    return r.isPrimitive() ? simple(r) : null;
            }
        });
    }
}
