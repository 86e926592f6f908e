package io.fairslice.loadgen;

/**
 * A simulation parameter that breaks its rule. {@link #parameter} names it, so that a caller that builds the
 * parameters from settings of its own (the study harness) can name its own setting instead.
 */
public final class ParameterException extends IllegalArgumentException {

    private final String parameter;

    ParameterException(String parameter, String ruleAndValue) {
        super(parameter + " " + ruleAndValue);
        this.parameter = parameter;
    }

    /** The parameter's name, as in the system property. */
    public String parameter() {
        return parameter;
    }
}
