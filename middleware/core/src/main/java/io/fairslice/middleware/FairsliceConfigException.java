package io.fairslice.middleware;

/**
 * A configuration value broke a rule. The message names the key, the rule and the value received, so that a
 * failed web application start says exactly what to fix.
 */
public final class FairsliceConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;
    private final String key;
    private final String rule;
    private final String value;
    private final boolean unknownKey;
    private final String origin;

    private FairsliceConfigException(String key, String rule, String value, boolean unknownKey, String origin) {
        super("fairslice configuration: " + key + " " + rule + ", got "
                + (value == null ? "nothing" : "'" + value + "'"));
        this.key = key;
        this.rule = rule;
        this.value = value;
        this.unknownKey = unknownKey;
        this.origin = origin;
    }

    /** {@code key} broke {@code rule} (worded to follow the key: "must be 1..1000"); {@code value} as received. */
    public static FairsliceConfigException of(String key, String rule, String value) {
        return new FairsliceConfigException(key, rule, value, false, null);
    }

    /** {@code key} is no configuration key at all (nor a setting of a request listener): a typo, say. */
    public static FairsliceConfigException unknownKey(String key, String rule, String value) {
        return new FairsliceConfigException(key, rule, value, true, null);
    }

    /**
     * This refusal, saying where its value came from ({@link #origin}): for a value refused before the sources are
     * merged (the file {@code fairslice.config} names), which no merged source can name afterwards. The message stays
     * as it is; the stack trace and cause are this one's.
     */
    public FairsliceConfigException withOrigin(String origin) {
        FairsliceConfigException named = new FairsliceConfigException(key, rule, value, unknownKey, origin);
        named.setStackTrace(getStackTrace());
        if (getCause() != null) {
            named.initCause(getCause());
        }
        return named;
    }

    /**
     * Where the refused value came from, worded as {@code ConfigSources.Merged#originOf} words it ("by system property
     * -Dfairslice.config"), when the refusal knows it ({@link #withOrigin}); null otherwise: the merged sources say.
     */
    public String origin() {
        return origin;
    }

    /** Whether the key itself is unknown, rather than its value wrong. */
    public boolean unknownKey() {
        return unknownKey;
    }

    public String key() {
        return key;
    }

    public String rule() {
        return rule;
    }

    public String value() {
        return value;
    }
}
