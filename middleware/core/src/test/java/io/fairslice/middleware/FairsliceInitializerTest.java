package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairsliceInitializerTest {

    /**
     * The initializer registers a filter instance of its own class: Tomcat keeps only a registered class's name and
     * loads it through the application's class loader, which looks in WEB-INF/lib first, so under the installer's
     * bundle a WAR that packs its own copy of the middleware ran that copy (the bundle's request listeners not of its
     * type, its meters in its own registry, its warning about the copy never said).
     */
    @Test
    void shouldRegisterAnInstanceOfItsOwnFilterClassNotAClassName() {
        List<Object> added = new ArrayList<>();
        FilterRegistration.Dynamic registration = (FilterRegistration.Dynamic) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {FilterRegistration.Dynamic.class},
                (proxy, method, args) -> null);
        ServletContext context = (ServletContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getInitParameter" -> null;
                    case "getContextPath" -> "/shop";
                    case "getFilterRegistrations" -> Map.of();
                    case "addFilter" -> {
                        added.add(args[1]);
                        yield registration;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });

        new FairsliceInitializer().onStartup(null, context);

        assertThat(added).singleElement().isInstanceOf(Filter.class)
                .satisfies(f -> assertThat(f.getClass()).isSameAs(FairsliceFilter.class));
    }

    /**
     * The ROOT application's context path is "", and the line that says fairslice is off there named nothing
     * ({@code not registered in  (fairslice.enabled=false)}); the filter and the meters call it "/". The line names
     * the application as the filter's lines do, and which setting switched it off.
     */
    @Test
    void shouldNameTheRootApplicationSlashWhenItIsNotRegistered() {
        ServletContext context = context("", "false");

        try (LogCapture log = LogCapture.of(FairsliceInitializer.class)) {
            new FairsliceInitializer().onStartup(null, context);

            assertThat(log.lines()).containsExactly("INFO fairslice[/]: not registered (enabled=false, set by context"
                    + " parameter fairslice.enabled)");
        }
    }

    /**
     * A {@code -Dfairslice.enabled} that is not blank wins over the context parameter, and the line names it (the
     * choice is ConfigSources', as for the file {@code fairslice.config} names).
     */
    @Test
    void shouldNameTheSystemPropertyThatSwitchedItOff() {
        ServletContext context = context("/shop", "true");
        System.setProperty("fairslice.enabled", "False");
        try (LogCapture log = LogCapture.of(FairsliceInitializer.class)) {
            new FairsliceInitializer().onStartup(null, context);

            assertThat(log.lines()).containsExactly("INFO fairslice[/shop]: not registered (enabled=false, set by"
                    + " system property -Dfairslice.enabled)");
        } finally {
            System.clearProperty("fairslice.enabled");
        }
    }

    /**
     * A context at {@code path} whose only context parameter is {@code fairslice.enabled}: one that registers no
     * filter, anything beyond reading them refused.
     */
    private ServletContext context(String path, String enabled) {
        return (ServletContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getInitParameter" -> "fairslice.enabled".equals(args[0]) ? enabled : null;
                    case "getContextPath" -> path;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
