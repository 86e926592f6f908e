package io.fairslice.middleware.jmx;

/**
 * Runtime control of one web application's middleware. Every change goes through the same validation as startup
 * configuration; a rejected change throws {@link IllegalArgumentException} naming the key, rule and value.
 */
public interface FairsliceControlMBean {

    /** observe, sleep or share. */
    String getPolicy();

    void setPolicy(String policy);

    /** The class shares, e.g. {@code light=80,heavy=20}. */
    String getShares();

    /** Sets shares given as {@code class=weight} pairs, comma-separated; classes not named keep theirs. */
    void setShares(String shares);

    /** The share scheduler's quantum, e.g. {@code 5ms}. */
    String getShareQuantum();

    void setShareQuantum(String quantum);

    /** The sleep policy's quantum and sleep, e.g. {@code 1ms}. */
    String getSleepQuantum();

    void setSleepQuantum(String quantum);

    String getSleepDuration();

    void setSleepDuration(String duration);

    /** Sets any runtime-changeable key (see docs/configuration.md). */
    void set(String key, String value);

    /** The whole current configuration. */
    String getConfiguration();

    /** Per class: in flight, running, waiting, balance, CPU share against target. */
    String getState();

    /**
     * Per route of the adaptive classifier's table: the class its requests get where no rule names one, its CPU per
     * request as the classifier sees it (the EWMA; while it learns, the cheapest so far), the requests measured, and
     * whether it still learns, the most expensive first (at most 200); then how full the table is. Routes are shown
     * {@link io.fairslice.middleware.classify.RouteTable#printable printable}.
     */
    String getRoutes();
}
