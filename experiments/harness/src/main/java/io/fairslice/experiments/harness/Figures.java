package io.fairslice.experiments.harness;

import de.erichseifert.vectorgraphics2d.Processors;
import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.DoubleStream;
import javax.imageio.ImageIO;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The run's figures, each as PNG and SVG (XChart draws, VectorGraphics2D writes the SVG): throughput against heavy
 * clients with one panel per configuration (the study's figure), light retention at the heaviest point by
 * middleware and scheduler, and light latency percentiles per configuration.
 */
public final class Figures {

    static final int PANEL_WIDTH = 460;
    static final int PANEL_HEIGHT = 320;
    private static final Color LIGHT = new Color(0x1f77b4);
    private static final Color HEAVY = new Color(0xd62728);

    /** The figures' base names, each written as .png and .svg. */
    static final List<String> NAMES = List.of("throughput", "retention", "latency");

    private Figures() {
    }

    /**
     * Writes every figure into {@code dir}; returns the base names written (each has .png and .svg). The outcomes
     * name configurations that were not measured, so the retention figure can mark them instead of drawing nothing.
     */
    public static List<String> write(Summary summary, List<ConfigurationOutcome> outcomes, Path dir)
            throws IOException {
        Files.createDirectories(dir);
        List<String> written = new ArrayList<>();
        if (summary.rows().isEmpty()) {
            return written;
        }
        save(throughputPanels(summary), dir, NAMES.get(0));
        written.add(NAMES.get(0));
        save(List.of(retention(summary, outcomes)), dir, NAMES.get(1));
        written.add(NAMES.get(1));
        save(latencyPanels(summary), dir, NAMES.get(2));
        written.add(NAMES.get(2));
        return written;
    }

    /**
     * One panel per configuration, all on the same two scales (light on the left, heavy on the right), so that
     * panels can be compared by eye: a per-panel scale made 6 heavy req/s look as tall as 50.
     */
    static List<Chart<?, ?>> throughputPanels(Summary summary) {
        double lightTop = niceCeiling(summary.rows().stream().mapToDouble(Summary.Row::light));
        double heavyTop = niceCeiling(summary.rows().stream().mapToDouble(Summary.Row::heavy));
        List<Chart<?, ?>> charts = new ArrayList<>();
        for (String configuration : summary.configurations()) {
            List<Summary.Row> rows = summary.rowsOf(configuration);
            XYChart chart = new XYChartBuilder().width(PANEL_WIDTH).height(PANEL_HEIGHT).title(configuration)
                    .xAxisTitle("heavy clients").yAxisTitle("light req/s").build();
            style(chart.getStyler());
            chart.getStyler().setYAxisMin(0, 0.0).setYAxisMin(1, 0.0);
            chart.getStyler().setYAxisMax(0, lightTop).setYAxisMax(1, heavyTop);
            chart.setYAxisGroupTitle(1, "heavy req/s");
            chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
            List<Double> x = rows.stream().map(r -> (double) r.heavyUsers()).toList();
            XYSeries light = chart.addSeries("light", x, rows.stream().map(Summary.Row::light).toList());
            light.setMarker(SeriesMarkers.CIRCLE);
            light.setLineColor(LIGHT);
            light.setMarkerColor(LIGHT);
            XYSeries heavy = chart.addSeries("heavy (right axis)", x, rows.stream().map(Summary.Row::heavy).toList());
            heavy.setYAxisGroup(1);
            heavy.setMarker(SeriesMarkers.SQUARE);
            heavy.setLineColor(HEAVY);
            heavy.setMarkerColor(HEAVY);
            charts.add(chart);
        }
        return charts;
    }

    /**
     * Light retention at the heaviest point, one group of bars per middleware, one bar per scheduler. A cell with
     * no number (the configuration was not run, was not available, failed, or has no H = 0 or heaviest point) is
     * left empty and labelled, so that it cannot be read as 0 %.
     */
    static CategoryChart retention(Summary summary, List<ConfigurationOutcome> outcomes) {
        List<String> middlewares = new ArrayList<>();
        List<String> schedulers = new ArrayList<>();
        int heaviest = 0;
        List<String> ids = new ArrayList<>(summary.configurations());
        outcomes.stream().map(ConfigurationOutcome::configuration).filter(c -> !ids.contains(c)).forEach(ids::add);
        for (String c : ids) {
            String m = c.substring(0, c.indexOf('@'));
            String s = c.substring(c.indexOf('@') + 1);
            if (!middlewares.contains(m)) {
                middlewares.add(m);
            }
            if (!schedulers.contains(s)) {
                schedulers.add(s);
            }
        }
        for (Summary.Row row : summary.rows()) {
            heaviest = Math.max(heaviest, row.heavyUsers());
        }
        int width = Math.max(PANEL_WIDTH, 140 + middlewares.size() * schedulers.size() * 46);
        CategoryChart chart = new CategoryChartBuilder().width(width).height(380)
                .title("light retention at " + heaviest + " heavy clients")
                .xAxisTitle("middleware").yAxisTitle("% of light throughput kept").build();
        style(chart.getStyler());
        chart.getStyler().setYAxisMin(0.0).setYAxisMax(retentionAxisTop(summary, ids, heaviest))
                .setYAxisDecimalPattern("#");
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        double barWidth = chart.getStyler().getAvailableSpaceFill() / schedulers.size();
        for (int j = 0; j < schedulers.size(); j++) {
            String s = schedulers.get(j);
            List<Double> values = new ArrayList<>();
            for (int i = 0; i < middlewares.size(); i++) {
                String configuration = middlewares.get(i) + "@" + s;
                Double value = retentionPercent(summary, configuration, heaviest);
                values.add(value);
                if (value == null) {
                    // over the empty bar's slot; in annotation coordinates category i spans [i, i + 1]
                    double x = i + 0.5 + (j - (schedulers.size() - 1) / 2.0) * barWidth;
                    chart.addAnnotation(new AnnotationText(missingLabel(summary, outcomes, configuration, heaviest),
                            x, 4, false));
                }
            }
            chart.addSeries("scheduler " + s, middlewares, values);
        }
        int light = summary.rows().get(0).lightUsers();
        double fair = 100.0 * light / (light + heaviest);
        chart.addAnnotation(new AnnotationLine(fair, false, false));
        chart.addAnnotation(new AnnotationText(fairShareLabel(light, heaviest), middlewares.size() - 0.6, fair + 3,
                false));
        chart.addAnnotation(new AnnotationLine(22, false, false));
        chart.addAnnotation(new AnnotationText("2005 study, Solaris 9: 22 %", middlewares.size() - 0.6, 25, false));
        return chart;
    }

    /**
     * The retention axis's top: 100 %, or a round number above the largest bar when one is higher. Retention can pass
     * 100 % (a noisy light-only reference, or a middleware that serves light pages better under load); a fixed 100 %
     * cut such a bar off at the top, where it read as exactly 100 %.
     */
    static double retentionAxisTop(Summary summary, List<String> configurations, int heaviest) {
        double highest = configurations.stream().map(c -> retentionPercent(summary, c, heaviest))
                .filter(v -> v != null).mapToDouble(Double::doubleValue).max().orElse(0);
        return highest <= 100 ? 100 : niceCeiling(DoubleStream.of(highest));
    }

    /** The fair-share line's label: to a tenth, as the report's table gives the bound (42.9 %, where it said 43 %). */
    static String fairShareLabel(int light, int heaviest) {
        return "fair share " + Report.percent((double) light / (light + heaviest));
    }

    /** Retention in percent at exactly {@code heaviest} heavy clients; null when there is no such number. */
    static Double retentionPercent(Summary summary, String configuration, int heaviest) {
        Summary.Row row = summary.rowsOf(configuration).stream().filter(r -> r.heavyUsers() == heaviest).findFirst()
                .orElse(null);
        return row == null || Double.isNaN(row.retention()) ? null : 100 * row.retention();
    }

    /** Why a retention cell is empty, in a word or two that fits over one bar. */
    static String missingLabel(Summary summary, List<ConfigurationOutcome> outcomes, String configuration,
                               int heaviest) {
        for (ConfigurationOutcome o : outcomes) {
            if (o.configuration().equals(configuration)) {
                switch (o.status()) {
                    case NOT_AVAILABLE:
                        return "n/a";
                    case FAILED:
                        return "failed";
                    default:
                        break;
                }
            }
        }
        List<Summary.Row> rows = summary.rowsOf(configuration);
        if (rows.isEmpty()) {
            return "not run";
        }
        if (rows.stream().noneMatch(r -> r.heavyUsers() == heaviest)) {
            return "no H=" + heaviest;
        }
        // a light-only point measured whose light pages served nothing (every request failed) was called missing
        return rows.stream().anyMatch(r -> r.heavyUsers() == 0) ? "no light at H=0" : "no H=0";
    }

    static List<Chart<?, ?>> latencyPanels(Summary summary) {
        List<Chart<?, ?>> charts = new ArrayList<>();
        for (String configuration : summary.configurations()) {
            List<Summary.Row> rows = summary.rowsOf(configuration).stream()
                    .filter(r -> r.lightP50() > 0 || r.lightP99() > 0).toList();
            XYChart chart = new XYChartBuilder().width(PANEL_WIDTH).height(PANEL_HEIGHT)
                    .title(configuration + ": light latency").xAxisTitle("heavy clients").yAxisTitle("ms (log)")
                    .build();
            style(chart.getStyler());
            chart.getStyler().setYAxisLogarithmic(true);
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
            if (rows.isEmpty()) {
                charts.add(chart);
                continue;
            }
            List<Double> x = rows.stream().map(r -> (double) r.heavyUsers()).toList();
            chart.addSeries("p50", x, rows.stream().map(r -> Math.max(1, r.lightP50())).toList())
                    .setMarker(SeriesMarkers.CIRCLE);
            chart.addSeries("p99", x, rows.stream().map(r -> Math.max(1, r.lightP99())).toList())
                    .setMarker(SeriesMarkers.DIAMOND);
            charts.add(chart);
        }
        return charts;
    }

    /**
     * A round axis top at or above the largest finite value: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of
     * ten, so that the highest point uses most of the panel.
     */
    static double niceCeiling(DoubleStream values) {
        double max = values.filter(Double::isFinite).max().orElse(0);
        if (max <= 0) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (step * magnitude >= max * (1 - 1e-12)) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static void style(Styler styler) {
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setLegendPosition(Styler.LegendPosition.InsideNE);
        styler.setMarkerSize(7);
        styler.setAntiAlias(true);
    }

    /**
     * Lays the charts out in a grid (up to 3 per row) and writes {@code name}.png and {@code name}.svg, each whole or
     * not at all ({@link ResultsFiles#replaceBytes}).
     */
    static void save(List<? extends Chart<?, ?>> charts, Path dir, String name) throws IOException {
        int columns = Math.min(3, charts.size());
        int rows = (charts.size() + columns - 1) / columns;
        int cellWidth = charts.stream().mapToInt(Chart::getWidth).max().orElse(PANEL_WIDTH);
        int cellHeight = charts.stream().mapToInt(Chart::getHeight).max().orElse(PANEL_HEIGHT);
        int width = columns * cellWidth;
        int height = rows * cellHeight;

        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        paintGrid(charts, g, columns, cellWidth, cellHeight, width, height);
        g.dispose();
        ResultsFiles.replaceBytes(dir.resolve(name + ".png"), out -> {
            if (!ImageIO.write(image, "png", out)) {
                throw new IOException("no PNG writer in this JVM (javax.imageio)");
            }
        });

        VectorGraphics2D svg = new VectorGraphics2D();
        paintGrid(charts, svg, columns, cellWidth, cellHeight, width, height);
        ResultsFiles.replaceBytes(dir.resolve(name + ".svg"), out ->
                Processors.get("svg").getDocument(svg.getCommands(), new PageSize(0, 0, width, height)).writeTo(out));
    }

    private static void paintGrid(List<? extends Chart<?, ?>> charts, Graphics2D g, int columns, int cellWidth,
                                  int cellHeight, int width, int height) {
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        for (int i = 0; i < charts.size(); i++) {
            AffineTransform saved = g.getTransform();
            g.translate((i % columns) * cellWidth, (i / columns) * cellHeight);
            Chart<?, ?> chart = charts.get(i);
            chart.paint(g, chart.getWidth(), chart.getHeight());
            g.setTransform(saved);
            g.setClip(null);
        }
    }
}
