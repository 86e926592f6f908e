package io.fairslice.weavingtest;

import io.fairslice.middleware.FairsliceFilter;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.Host;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/** The embedded Tomcat of the weaving tests: the application's woven code and the real middleware in one JVM. */
final class EmbeddedTomcats {

    private EmbeddedTomcats() {
    }

    /** A Tomcat based in {@code work/tomcat} with one connector on a free loopback port (its port once started). */
    static Tomcat onLoopback(Path work) {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.resolve("tomcat").toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        return tomcat;
    }

    /**
     * The host of a Tomcat based in {@code base}, for a test that runs some of Tomcat's code. Without a base of its own
     * a Tomcat takes the JVM's catalina.base, the last one's, and creates it again: an earlier test's deleted @TempDir
     * came back.
     */
    static Host host(Path base) {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        return tomcat.getHost();
    }

    /** The real {@link FairsliceFilter} on every request of {@code context}, with these init parameters; returns it. */
    static FairsliceFilter addFairslice(Context context, Map<String, String> initParameters) {
        FairsliceFilter filter = new FairsliceFilter();
        FilterDef fairslice = new FilterDef();
        fairslice.setFilterName("fairslice");
        fairslice.setFilter(filter);
        initParameters.forEach(fairslice::addInitParameter);
        context.addFilterDef(fairslice);
        FilterMap everything = new FilterMap();
        everything.setFilterName("fairslice");
        everything.addURLPattern("/*");
        context.addFilterMap(everything);
        return filter;
    }
}
