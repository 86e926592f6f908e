package io.fairslice.tomcat.it;

import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * The drop-in scenario on Tomcat 11 with every request on a virtual thread of its own (the connector's
 * useVirtualThreads): the JVM measures no CPU time for those, which fairslice stands in for (Clock.WallStandIn), and
 * a heavy request parked at a yield point gives its carrier thread back. Java 21+: {@code ./fairslice test} runs it on
 * a newer JDK when JAVA_HOME's is 17.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class Tomcat11VirtualThreadsIT extends TomcatDropInScenario {

    @Override
    int versionIndex() {
        return 0;
    }

    @Override
    boolean virtualThreads() {
        return true;
    }
}
