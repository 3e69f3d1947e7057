package dev.tally.common;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Keeps mutation testing (PIT, which skips what carries an annotation of this name) off a method whose changes no
 * unit test can see, and says why: a line that only reads an HTTP request, tested with a server instead.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface DoNotMutate {
    /** Why no unit test can tell this method's mutants apart, and which test runs it. */
    String value();
}
