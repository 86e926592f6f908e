package io.fairslice.middleware.weaving;

import io.fairslice.middleware.Fairslice;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/**
 * Optional: declares the application's JDBC calls that wait for the database blocking ({@link Fairslice#blocking()}),
 * so that a request gives its run slot to the next one for the length of each, at once, rather than after the
 * scheduler has looked at its thread twice. The calls are those made from the woven code into {@code java.sql} and
 * {@code javax.sql}: a statement's {@code execute*} methods (queries, updates, batches), a connection's
 * {@code commit} and {@code rollback}, and a data source's {@code getConnection} (a pool that waits, a new
 * connection). Not {@code ResultSet.next()}: it mostly reads rows already fetched, and a run slot given up and taken
 * again per row would cost more than it frees.
 *
 * <p>Opt-in (docs/weaving.md): the operator declares it in the application's aop.xml,
 * {@code <aspects><aspect name="io.fairslice.middleware.weaving.BlockingCallAspect"/></aspects>}. It acts at the
 * call sites in the weaving scope: calls that a library outside the scope makes (an ORM's, say) are not declared,
 * and are found by the scheduler's looks as before; {@link io.fairslice.middleware.jdbc.BlockingDataSource} reaches
 * those, without weaving.
 */
@Aspect
public class BlockingCallAspect {

    @Around("(call(* java.sql.Statement+.execute*(..)) || call(* java.sql.Connection+.commit())"
            + " || call(* java.sql.Connection+.rollback(..)) || call(* javax.sql.DataSource+.getConnection(..)))"
            + " && !io.fairslice.middleware.weaving.YieldPointAspect.fenced()")
    public Object aroundBlockingCall(ProceedingJoinPoint call) throws Throwable {
        try (Fairslice.Blocking ignored = Fairslice.blocking()) {
            return call.proceed();
        }
    }
}
