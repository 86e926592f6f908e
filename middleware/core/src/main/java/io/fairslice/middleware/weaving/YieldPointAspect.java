package io.fairslice.middleware.weaving;

import io.fairslice.middleware.Fairslice;
import io.fairslice.middleware.internal.YieldGate;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.annotation.After;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
import org.aspectj.lang.annotation.Pointcut;

/**
 * Puts a yield point at the start of every method of the application's classes, and counts the woven classes as
 * they initialise.
 *
 * <p>Which classes are the application's is not decided here: it is the {@code <include within="..."/>} scope of
 * the AspectJ load-time weaver (see {@code META-INF/aop.xml} in this jar and {@link WeavingScope}). The pointcuts
 * below only add a fence that no scope can cross, so that a too-wide include never weaves the JDK, the container,
 * AspectJ, metrics libraries or fairslice itself. {@code within} is matched while weaving, so the fence costs
 * nothing at run time.
 *
 * <p>The advice is a single static call: {@link Fairslice#yieldPoint()} returns at once unless the scheduler wants
 * this request to pause. Annotation style (no ajc step): the weaver turns this class into an aspect when it loads it.
 */
@Aspect
public class YieldPointAspect {

    /**
     * Code that must never hold a yield point, whatever the configured scope; other aspects too (their advice may
     * run inside a yield point).
     */
    @Pointcut("within(java..*) || within(javax..*) || within(jakarta..*) || within(jdk..*) || within(sun..*)"
            + " || within(com.sun..*) || within(org.apache.catalina..*) || within(org.apache.coyote..*)"
            + " || within(org.apache.tomcat..*) || within(org.apache.juli..*) || within(org.apache.naming..*)"
            + " || within(org.aspectj..*) || within(io.micrometer..*) || within(io.prometheus..*)"
            + " || within(io.fairslice.middleware..*) || within(io.fairslice.probe..*)"
            + " || within(io.fairslice.tomcat..*) || within(io.fairslice.shaded..*)"
            + " || within(org.apache.jasper..*) || within(org.apache.el..*) || within(org.eclipse.jdt..*)"
            + " || within(@org.aspectj.lang.annotation.Aspect *)")
    void fenced() {
    }

    /**
     * A synchronized method, or a class's static initialiser (the JVM's class-init lock), holds a lock that other
     * requests may need: a yield point inside it, or in anything it calls, must not park the request, or those
     * requests stall behind a parked lock holder (a priority inversion that {@code share} would create). Counted
     * per thread; the scheduler defers the yield to the first yield point outside. Declared before
     * {@link #atMethodStart()} so that it runs first (same aspect: the earlier before-advice runs first).
     */
    @Before("(execution(synchronized * *(..)) || staticinitialization(*)) && !fenced()")
    public void atLockEntered() {
        YieldGate.monitorEntered();
    }

    /**
     * Methods that the JDK's collections, sorts, streams and serialisers call at very high rates and that do
     * almost nothing: a record's accessors (its instance methods without parameters), JavaBeans getters and setters
     * (instance methods, by their names: a {@code getReport()} that computes loses its own yield point, not those
     * of the methods it calls),
     * {@code hashCode}, {@code equals}, {@code compareTo} and a comparator's {@code compare}. A yield point there is
     * reached thousands of times per request (a sort of 200 records by two fields calls the accessors some 6 000
     * times) for nothing: a request is sliced at the methods around them, which keep theirs. Woven, a Spring MVC
     * shop's record accessors made 23 600 yield points per cheap request, and its cheap pages kept 47 % of their
     * throughput under overload instead of 83 % (docs/weaving.md, "Choosing the scope").
     */
    @Pointcut("execution(!static * java.lang.Record+.*()) || execution(!static !void get*())"
            + " || execution(!static boolean is*()) || execution(!static void set*(*))"
            + " || execution(int hashCode()) || execution(boolean equals(Object))"
            + " || execution(int compareTo(*)) || execution(int compare(*, *))")
    void tinyAndHot() {
    }

    @Before("execution(* *(..)) && !fenced() && !tinyAndHot()")
    public void atMethodStart() {
        Fairslice.yieldPoint();
    }

    /** After the method or initialiser, however it ended (AspectJ's after is after-finally). */
    @After("(execution(synchronized * *(..)) || staticinitialization(*)) && !fenced()")
    public void atLockLeft() {
        YieldGate.monitorExited();
    }

    /** Once per woven class, when it initialises: this is what {@link WovenClasses} counts. */
    @After("staticinitialization(*) && !fenced()")
    public void atClassInitialised(JoinPoint.StaticPart joinPoint) {
        WovenClasses.record(joinPoint.getSignature().getDeclaringType());
    }
}
