package io.fairslice.experiments.server.peers;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.catalina.Context;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The peers the study compares fairslice with, selected by the system property {@code fairslice.peer} (so the
 * server's own options stay the middleware's): {@code none} (default) or {@code netflix-partitioned}. An unknown
 * value stops the server.
 */
public final class Peers {

    public static final String PROPERTY = "fairslice.peer";
    public static final String NETFLIX_PARTITIONED = "netflix-partitioned";

    private Peers() {
    }

    /**
     * Installs the selected peer as the context's first filter on every path; returns a line saying what was
     * installed (the study harness checks for it), or null when no peer was selected.
     */
    public static String install(Context context, MeterRegistry registry) {
        String peer = System.getProperty(PROPERTY, "none").trim();
        switch (peer) {
            case "none", "" -> {
                return null;
            }
            case NETFLIX_PARTITIONED -> {
                PeerSettings settings = PeerSettings.fromSystemProperties();
                FilterDef def = new FilterDef();
                def.setFilterName("fairslice-peer");
                def.setFilter(new PartitionedLimiterFilter(settings, registry));
                def.setAsyncSupported("false");
                context.addFilterDef(def);
                FilterMap map = new FilterMap();
                map.setFilterName("fairslice-peer");
                map.addURLPattern("/*");
                context.addFilterMapBefore(map);
                return "fairslice peer: " + NETFLIX_PARTITIONED + " installed (" + settings + ")";
            }
            default -> throw new IllegalArgumentException(PROPERTY + " must be none or " + NETFLIX_PARTITIONED
                    + ", got '" + peer + "' (unknown peer)");
        }
    }
}
