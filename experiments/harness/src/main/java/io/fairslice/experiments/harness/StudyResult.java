package io.fairslice.experiments.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A whole run: its settings, the machine, every window and what became of every configuration. */
public record StudyResult(String runId, Map<String, String> settings, Map<String, String> machine,
                          List<PointResult> points, List<ConfigurationOutcome> outcomes, long startEpochMillis,
                          long endEpochMillis, int heaviest) {

    public StudyResult {
        // insertion order is the order the report lists them in
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        machine = Collections.unmodifiableMap(new LinkedHashMap<>(machine));
        points = List.copyOf(points);
        outcomes = List.copyOf(outcomes);
    }

    /** The configurations whose outcome is {@code FAILED}, in run order. */
    public List<String> failedConfigurations() {
        return outcomes.stream().filter(o -> o.status() == ConfigurationOutcome.Status.FAILED)
                .map(ConfigurationOutcome::configuration).toList();
    }
}
