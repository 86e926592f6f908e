package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.experiments.app.CatalogueGenerator;
import io.fairslice.experiments.app.HeavyServlet;
import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.weavingtest.probe.YieldPointCounter;
import io.fairslice.weavingtest.shop.BulkDiscount;
import io.fairslice.weavingtest.shop.Checkout;
import io.fairslice.weavingtest.shop.Fibonacci;
import io.fairslice.weavingtest.shop.Item;
import io.fairslice.weavingtest.shop.Mailbox;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs in its own JVM (Surefire execution "call-sites") whose weaver also has {@code CallSiteYieldPointAspect}:
 * calls from the application into the JDK and the DOM get yield points too.
 */
class CallSiteYieldPointsTest {

    @Test
    void shouldAddAYieldPointBeforeEveryCallIntoTheJdk() {
        List<Item> basket = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            basket.add(new Item("sku-" + i, 250, 1 + i % 20));
        }
        Checkout checkout = new Checkout(new BulkDiscount(10));
        long before = YieldPointCounter.count();

        checkout.total(basket);

        // 201 method executions as without call sites (no record accessors), plus the for-each loop's calls into
        // java.util: iterator() once, hasNext() 101 times, next() 100 times
        assertThat(YieldPointCounter.count() - before).isEqualTo(201 + 1 + 101 + 100);
    }

    /**
     * No yield point before the calls made only while a monitor or a lock is held: Object.notifyAll (wait, notify),
     * Condition.signalAll (await, signal), Lock.unlock and a StampedLock's unlockWrite (its other releases). A yield
     * point there parked a request holding its monitor or lock, which the scheduler sees only for woven synchronized
     * methods.
     */
    @Test
    void shouldAddNoYieldPointBeforeCallsMadeOnlyUnderAMonitorOrALock() {
        Mailbox mailbox = new Mailbox();
        long before = YieldPointCounter.count();

        mailbox.post();

        // post()'s execution and its calls to lock() and writeLock(), which take the locks; not notifyAll,
        // signalAll, unlock nor unlockWrite
        assertThat(YieldPointCounter.count() - before).isEqualTo(3);
        assertThat(mailbox.letters()).isEqualTo(1);
    }

    @Test
    void shouldAddNothingWhereTheApplicationCallsOnlyItself() {
        long expected = Fibonacci.executions(15);
        long before = YieldPointCounter.count();

        Fibonacci.of(15);

        assertThat(YieldPointCounter.count() - before).isEqualTo(expected);
    }

    @Test
    void shouldSliceTheHeavyPagesTraversal(@TempDir Path dir) throws Exception {
        Path document = CatalogueGenerator.ensure(dir, 2005, 2L * 1024 * 1024);
        HeavyServlet heavy = new HeavyServlet(document);
        heavy.parseAndTraverse();
        long before = YieldPointCounter.count();

        HeavyServlet.Summary summary = heavy.parseAndTraverse();

        long yieldPoints = YieldPointCounter.count() - before;
        System.out.printf("yield points per /heavy parse and traversal with call sites: %d for %d nodes"
                + " (%.1f per node); the parse itself (JDK code) has none%n", yieldPoints, summary.nodes(),
                (double) yieldPoints / summary.nodes());
        assertThat(yieldPoints).isGreaterThan(summary.nodes());
        System.out.println(WeavingScope.inspect(getClass().getClassLoader()).summary());
    }
}
