package io.fairslice.middleware.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The name a running web application's meters ({@code application} tag) and JMX control carry: its context path,
 * unless another running application in this JVM has it already. Two hosts of one Tomcat can each run a ROOT
 * application ({@code /}), and a parallel deployment ({@code shop##2} beside {@code shop##1}) runs two applications
 * with one context path: sharing a name, the second's gauges were bound to the first's scheduler, and the first's
 * stop removed the second's meters and its MBean. The second gets {@code host/path} when the first runs on another
 * host, else {@code path#2}, {@code path#3}, ...
 */
public final class ApplicationNames {

    private ApplicationNames() {
    }

    private record Claim(Object owner, String host) {
    }

    private static final Map<String, Claim> LIVE = new HashMap<>();

    /**
     * Claims a name for {@code owner}, the first of: {@code path}; {@code host + path} when {@code path} is held on
     * another host; {@code path#2}, {@code path#3}, ... {@code inUse} says whether a name is taken outside this
     * class's knowledge (meters or an MBean left by a copy of fairslice in another class loader).
     */
    public static synchronized String claim(String path, String host, Object owner, Predicate<String> inUse) {
        String name = path;
        Claim holder = LIVE.get(path);
        if (holder != null && !Objects.equals(holder.host(), host) && host != null && !host.isEmpty()) {
            name = host + path;
        }
        for (int n = 2; LIVE.containsKey(name) || inUse.test(name); n++) {
            name = path + "#" + n;
        }
        LIVE.put(name, new Claim(owner, host));
        return name;
    }

    /**
     * The path an application is named by, in log lines, meters and settings: its context path as the Servlet API gives
     * it, but {@code /} for ROOT, whose context path is {@code ""}.
     */
    public static String ofContextPath(String contextPath) {
        return contextPath.isEmpty() ? "/" : contextPath;
    }

    /**
     * How a log line names its application, {@code fairslice[/shop]: } ({@code /} for ROOT, {@code /shop#2} for a
     * second one, as {@link #claim} named it), or {@code fairslice: } when it has none (null: a part made without one).
     */
    public static String logPrefix(String application) {
        return application == null ? "fairslice: " : "fairslice[" + application + "]: ";
    }

    /** Gives the name back (the application stopped). */
    public static synchronized void release(String name, Object owner) {
        Claim held = LIVE.get(name);
        if (held != null && held.owner() == owner) {
            LIVE.remove(name);
        }
    }
}
