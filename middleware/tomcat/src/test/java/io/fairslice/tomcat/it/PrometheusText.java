package io.fairslice.tomcat.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The samples of a Prometheus text exposition, enough to check names, labels and values in tests. */
record PrometheusText(List<Sample> samples) {

    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})?\\s+(\\S+)(\\s+\\S+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line.strip());
            if (!m.matches()) {
                throw new IllegalArgumentException("not a Prometheus sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new PrometheusText(samples);
    }

    /** The sum of the samples named {@code name} whose labels include {@code match}. */
    double sum(String name, Map<String, String> match) {
        return samples.stream().filter(s -> s.name().equals(name))
                .filter(s -> s.labels().entrySet().containsAll(match.entrySet()))
                .mapToDouble(Sample::value).sum();
    }

    boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name().equals(name));
    }
}
