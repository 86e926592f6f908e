package io.fairslice.experiments.harness;

/**
 * What became of one configuration: measured, or why not (not available on this machine or in this checkout, or
 * failed). A configuration that was not measured is listed in the report, never left out silently.
 */
public record ConfigurationOutcome(String configuration, Status status, String message) {

    public enum Status { MEASURED, NOT_AVAILABLE, FAILED }
}
