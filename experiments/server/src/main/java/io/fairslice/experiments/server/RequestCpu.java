package io.fairslice.experiments.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU time fairslice measured for requests, read from a server's Prometheus text (/metrics): the meter
 * {@code fairslice_requests_cpu_seconds_total}, the serving threads' own CPU inside the filter, tagged with the
 * request's class and its normalised page. QuickCompare reads it by class, the study's harness by page.
 */
public final class RequestCpu {

    static final String METER = "fairslice_requests_cpu_seconds_total";

    private RequestCpu() {
    }

    /** CPU seconds per class; empty when the text has no such meter (a server without fairslice, a failed scrape). */
    public static Map<String, Double> byClass(String metricsText) {
        return sum(metricsText, "class");
    }

    /** CPU seconds per page (fairslice's normalised route, such as {@code /heavy}); empty without the meter. */
    public static Map<String, Double> byPage(String metricsText) {
        return sum(metricsText, "page");
    }

    /**
     * The meter summed per value of {@code label} over its other tags. A sample line without the label or with a value
     * that is not a number is an error: a silently dropped sample would understate a class or a page.
     */
    private static Map<String, Double> sum(String metricsText, String label) {
        Pattern tag = Pattern.compile("[{,]" + label + "=\"([^\"]*)\"");
        Map<String, Double> sums = new TreeMap<>();
        for (String line : metricsText.split("\n")) {
            if (!line.startsWith(METER + "{")) {
                continue;
            }
            Matcher m = tag.matcher(line);
            if (!m.find()) {
                throw new IllegalArgumentException("no " + label + " label in the /metrics line: " + line);
            }
            String value = line.substring(line.lastIndexOf(' ') + 1);
            try {
                sums.merge(m.group(1), Double.parseDouble(value), Double::sum);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a number (" + value + ") in the /metrics line: " + line, e);
            }
        }
        return sums;
    }
}
