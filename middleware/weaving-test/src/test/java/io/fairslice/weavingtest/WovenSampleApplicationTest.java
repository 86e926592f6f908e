package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.Fairslice;
import io.fairslice.middleware.internal.YieldGate;
import io.fairslice.middleware.weaving.WovenClasses;
import io.fairslice.weavingtest.probe.YieldPointCounter;
import io.fairslice.weavingtest.shop.BulkDiscount;
import io.fairslice.weavingtest.shop.Checkout;
import io.fairslice.weavingtest.shop.Fibonacci;
import io.fairslice.weavingtest.shop.Item;
import io.fairslice.weavingtest.shop.Product;
import io.fairslice.weavingtest.shop.Stock;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs under -javaagent:aspectjweaver with the scope io.fairslice.weavingtest.shop..* (src/test/resources). */
class WovenSampleApplicationTest {

    @Test
    void shouldReachAYieldPointAtEveryExecutionOfASampleMethod() {
        long expected = Fibonacci.executions(20);
        long before = YieldPointCounter.count();

        int value = Fibonacci.of(20);

        assertThat(value).isEqualTo(6765);
        assertThat(YieldPointCounter.count() - before).isEqualTo(expected).isEqualTo(21_891);
    }

    @Test
    void shouldReachYieldPointsInLoopsAndInterfaceImplementationsButNotInRecordAccessors() {
        List<Item> basket = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            basket.add(new Item("sku-" + i, 250, 1 + i % 20));
        }
        Checkout checkout = new Checkout(new BulkDiscount(10));
        long before = YieldPointCounter.count();

        checkout.total(basket);

        // total() once; per line: line() and BulkDiscount.apply(), not the record accessors unitCents(), quantity()
        // (called three times a line)
        assertThat(YieldPointCounter.count() - before).isEqualTo(1 + 100 * 2);
    }

    /**
     * The tiny methods that collections, sorts and serialisers call at high rates get no yield point: a Spring MVC
     * shop whose pages sorted records lost about half its cheap pages' throughput under contention to them
     * (docs/measurements/walkthrough-spring-20261128). The methods around them keep theirs.
     */
    @Test
    void shouldLeaveTheTinyMethodsThatCollectionsAndSortsCallWithoutYieldPoints() {
        List<Product> products = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            products.add(new Product("product-" + (i * 37 % 100)));
        }
        long before = YieldPointCounter.count();

        products.sort(null); // compareTo
        products.sort(Product.BY_NAME_LENGTH); // a comparator's compare
        Set<Product> distinct = new HashSet<>(products); // hashCode
        boolean found = distinct.contains(new Product(products.get(7).getName())); // hashCode, equals
        for (Product p : products) {
            p.setActive(!p.isActive());
            p.setName(p.getName());
        }
        long units = new Item("sku", 250, 3).unitCents(); // a record's accessor

        assertThat(distinct).hasSize(100);
        assertThat(found).isTrue();
        assertThat(units).isEqualTo(250);
        assertThat(YieldPointCounter.count() - before).as("yield points in accessors, hashCode, equals, compare")
                .isZero();
        assertThat(products.get(0).describe()).endsWith("(inactive)");
        assertThat(YieldPointCounter.count() - before).as("an ordinary method").isEqualTo(1);
    }

    /**
     * A yield point inside a synchronized method or a class initialiser must not park its request (the lock's other
     * users would wait for it): the woven code tells the yield gate when it is inside one, on return and on throw.
     */
    @Test
    void shouldTellTheYieldGateInsideSynchronizedMethodsAndClassInitialisers() {
        Stock.Probe.supplier = YieldGate::inMonitor; // before Stock initialises: its initialiser reads it
        Stock stock = new Stock();

        assertThat(Stock.IN_INITIALISER).as("in the static initialiser").isTrue();
        assertThat(stock.reserve()).as("in a method called from a synchronized method").isTrue();
        assertThat(stock.unlocked()).as("in an unsynchronized method").isFalse();
        assertThatThrownBy(stock::fail).isInstanceOf(IllegalStateException.class);
        assertThat(YieldGate.inMonitor()).as("after a synchronized method threw").isFalse();
    }

    @Test
    void shouldPutWovenCodeIntoTheSampleClassesBytes() {
        for (Class<?> woven : List.of(Fibonacci.class, Checkout.class, BulkDiscount.class, Item.class)) {
            assertThat(weavingArtefacts(woven)).as("members the weaver added to %s", woven.getName()).isNotEmpty();
        }
    }

    /**
     * This JVM's scope is the sample shop and the study app: it never reaches the JDK, Tomcat or fairslice, so this
     * checks that weaving stays inside the scope (nothing leaks into the classes the tests run), not the fence. The
     * fence is BroadScopeFenceTest's, in a JVM whose scope takes the fenced packages in.
     */
    @Test
    void shouldWeaveNothingOutsideTheSampleScope(@TempDir Path base) throws Exception {
        List<Class<?>> untouched = List.of(String.class, ArrayList.class, ConcurrentHashMap.class,
                DocumentBuilderFactory.class,
                Class.forName("com.sun.org.apache.xerces.internal.dom.ParentNode"),
                org.apache.catalina.core.StandardContext.class, org.apache.catalina.startup.Tomcat.class,
                org.apache.coyote.Request.class, org.apache.tomcat.util.buf.MessageBytes.class,
                Fairslice.class, WovenClasses.class);
        for (Class<?> type : untouched) {
            assertThat(weavingArtefacts(type)).as("members the weaver added to %s", type.getName()).isEmpty();
        }

        long before = YieldPointCounter.count();
        EmbeddedTomcats.host(base);
        String.join(",", List.of("a", "b")).toUpperCase(Locale.ROOT);
        Fairslice.yieldPoint();
        assertThat(YieldPointCounter.count() - before).as("yield points reached outside the sample app").isZero();
    }

    @Test
    void shouldCountOnlyScopeClassesAsWoven() {
        Fibonacci.of(3);
        new Checkout(new BulkDiscount(1)).total(List.of(new Item("a", 1, 1)));

        System.out.printf("woven classes initialised in this JVM: %d: %s%n", WovenClasses.count(),
                WovenClasses.sample());
        assertThat(WovenClasses.count()).isGreaterThanOrEqualTo(4);
        assertThat(WovenClasses.sample())
                .contains(Fibonacci.class.getName(), Checkout.class.getName(), BulkDiscount.class.getName(),
                        Item.class.getName())
                .allMatch(name -> name.startsWith("io.fairslice.weavingtest.shop.")
                        || name.startsWith("io.fairslice.experiments.app."));
    }

    /** The synthetic members (ajc$...) that AspectJ adds to a class it wove. */
    static List<String> weavingArtefacts(Class<?> type) {
        return Stream.concat(Stream.of(type.getDeclaredFields()).map(Field.class::cast),
                        Stream.of(type.getDeclaredMethods()).map(Method.class::cast))
                .map(Member::getName)
                .filter(name -> name.startsWith("ajc$"))
                .toList();
    }
}
