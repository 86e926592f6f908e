package io.fairslice.middleware;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.ContextResource;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * A real embedded Tomcat on a free loopback port with one context that registers the middleware via its initializer.
 */
final class EmbeddedTomcat implements AutoCloseable {

    final Tomcat tomcat = new Tomcat();
    final Context context;
    private final Path base;
    private final HttpClient client = HttpClient.newHttpClient();

    EmbeddedTomcat(String contextPath, Map<String, String> params, Object meterRegistry) throws IOException {
        base = Files.createTempDirectory("fairslice-filter-test");
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        context = tomcat.addContext(contextPath, base.toString());
        params.forEach(context::addParameter);
        if (meterRegistry != null) {
            context.getServletContext().setAttribute("io.fairslice.meterRegistry", meterRegistry);
        }
        context.addServletContainerInitializer(new FairsliceInitializer(), null);
    }

    EmbeddedTomcat servlet(String path, HttpServlet servlet, boolean async) {
        String name = "s" + path.replace('/', '_');
        Tomcat.addServlet(context, name, servlet).setAsyncSupported(async);
        context.addServletMapping(path, name);
        return this;
    }

    /**
     * The filter declared as web.xml declares it, mapped to every path for REQUEST and ASYNC dispatches, with
     * {@code <async-supported>} as given: the jar's initializer then leaves it to that declaration.
     */
    EmbeddedTomcat declaredFilter(boolean asyncSupported) {
        return declaredFilter(asyncSupported, "REQUEST", "ASYNC");
    }

    /** {@link #declaredFilter(boolean)} mapped for the {@code dispatchers} given (REQUEST, ASYNC, ERROR, ...). */
    EmbeddedTomcat declaredFilter(boolean asyncSupported, String... dispatchers) {
        var def = new FilterDef();
        def.setFilterName("fairslice");
        def.setFilterClass(FairsliceFilter.class.getName());
        def.setAsyncSupported(Boolean.toString(asyncSupported));
        context.addFilterDef(def);
        var map = new FilterMap();
        map.setFilterName("fairslice");
        map.addURLPattern("/*");
        for (String dispatcher : dispatchers) {
            map.setDispatcher(dispatcher);
        }
        context.addFilterMap(map);
        return this;
    }

    /**
     * A filter of the application's mapped to every path for REQUEST dispatches, declared as web.xml declares it:
     * before the filters declared after it.
     */
    EmbeddedTomcat applicationFilter(String name, Filter filter) {
        var def = new FilterDef();
        def.setFilterName(name);
        def.setFilter(filter);
        def.setFilterClass(filter.getClass().getName());
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        var map = new FilterMap();
        map.setFilterName(name);
        map.addURLPattern("/*");
        context.addFilterMap(map);
        return this;
    }

    /** A file of the web application, at {@code path} below its document base ({@code WEB-INF/classes/...}). */
    EmbeddedTomcat file(String path, String... lines) throws IOException {
        Path file = base.resolve(path);
        Files.createDirectories(file.getParent());
        Files.write(file, List.of(lines));
        return this;
    }

    /** Serves every request on a virtual thread of its own (the connector's useVirtualThreads: Java 21+). */
    EmbeddedTomcat virtualThreads() {
        tomcat.getConnector().setProperty("useVirtualThreads", "true");
        return this;
    }

    /** A JNDI resource of the context (java:comp/env/...): switches Tomcat's naming on. */
    EmbeddedTomcat resource(ContextResource resource) {
        tomcat.enableNaming();
        context.getNamingResources().addResource(resource);
        return this;
    }

    EmbeddedTomcat start() throws LifecycleException {
        tomcat.start();
        return this;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send("GET", path);
    }

    /** A request without a body of {@code method} (GET, OPTIONS, ...) to {@code path} in the context. */
    HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        return send(method, path, new String[0]);
    }

    /**
     * A GET of {@code path} in the context with {@code headers} as name, value pairs: a name given twice is sent on
     * two lines.
     */
    HttpResponse<String> getWithHeaders(String path, String... headers) throws IOException, InterruptedException {
        return send("GET", path, headers);
    }

    private HttpResponse<String> send(String method, String path, String[] headers)
            throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + context.getPath() + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The middleware's filter instance in this context. */
    FairsliceFilter filter() {
        try {
            var config = ((StandardContext) context)
                    .findFilterConfig(FairsliceInitializer.FILTER_NAME);
            var m = config.getClass().getDeclaredMethod("getFilter");
            m.setAccessible(true);
            return (FairsliceFilter) m.invoke(config);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
        try (var files = Files.walk(base)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            // a temp folder left behind is harmless
        }
    }
}
