package io.fairslice.middleware.weaving;

import io.fairslice.middleware.Fairslice;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
import org.aspectj.lang.annotation.Pointcut;

/**
 * Optional, denser yield points: one before every call that the application's code makes into the JDK, Jakarta or
 * the DOM/SAX APIs. Those callees are never woven, so a loop in application code that spends its time in them
 * (walking a DOM tree, filling collections, building strings) has no method execution of its own to yield at: with
 * {@link YieldPointAspect} alone it runs from its method's start to its end in one burst.
 *
 * <p>Opt-in (docs/weaving.md): the operator declares it in the application's aop.xml,
 * {@code <aspects><aspect name="io.fairslice.middleware.weaving.CallSiteYieldPointAspect"/></aspects>}. It costs
 * one yield-point fast path per such call, which matters in loops of very cheap calls.
 */
@Aspect
public class CallSiteYieldPointAspect {

    @Before("(call(* java..*.*(..)) || call(* javax..*.*(..)) || call(* jakarta..*.*(..))"
            + " || call(* org.w3c..*.*(..)) || call(* org.xml..*.*(..)))"
            + " && !underAMonitorOrALock() && !io.fairslice.middleware.weaving.YieldPointAspect.fenced()")
    public void beforeLibraryCall() {
        Fairslice.yieldPoint();
    }

    /**
     * Calls made only while the caller holds a monitor or a lock: Object's wait and notify, a Condition's await and
     * signal, Lock.unlock, and a StampedLock's releases (unlock, unlockRead, unlockWrite, their try forms, and the
     * conversions, which release or trade the stamp held; a StampedLock is no Lock). A yield point before them would
     * park the request holding it, and the scheduler sees a held monitor only in woven synchronized methods
     * ({@code YieldGate.inMonitor}), not in synchronized blocks.
     */
    @Pointcut("call(* java.lang.Object.wait(..)) || call(* java.lang.Object.notify*())"
            + " || call(* java.util.concurrent.locks.Condition+.*(..))"
            + " || call(* java.util.concurrent.locks.Lock+.unlock())"
            + " || call(* java.util.concurrent.locks.StampedLock.unlock*(..))"
            + " || call(* java.util.concurrent.locks.StampedLock.tryUnlock*(..))"
            + " || call(* java.util.concurrent.locks.StampedLock.tryConvertTo*(..))")
    void underAMonitorOrALock() {
    }
}
