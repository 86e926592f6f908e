package io.fairslice.spring;

import io.fairslice.middleware.spi.ListenerContext;
import io.fairslice.middleware.spi.RequestListener;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request listener with one setting, {@code limit.max} (a positive integer), found through this module's test
 * {@code META-INF/services}: it lets the tests show that Boot refuses a listener's bad setting before Tomcat starts,
 * as the kernel probe's {@code kernel-probe.*} would be. It does nothing on requests.
 */
public final class LimitListener implements RequestListener {

    @Override
    public String name() {
        return "limit";
    }

    @Override
    public Set<String> settingNames() {
        return Set.of("max");
    }

    @Override
    public void check(Map<String, String> settings, List<String> requestClasses) {
        String max = settings.get("max");
        if (max != null && !max.matches("[1-9][0-9]{0,8}")) {
            throw new IllegalArgumentException("limit.max must be a positive integer, got '" + max + "'");
        }
    }

    @Override
    public boolean start(ListenerContext context) {
        check(context.settings(), context.requestClasses());
        return true;
    }

    @Override
    public void enter(String requestClass) {
    }

    @Override
    public void exit(String requestClass) {
    }
}
