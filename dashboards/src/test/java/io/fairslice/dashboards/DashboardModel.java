package io.fairslice.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The parts of a Grafana dashboard JSON that the live test runs: template variables and panel queries. */
record DashboardModel(List<Variable> variables, List<Panel> panels) {

    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");

    /**
     * A template variable.
     *
     * @param query the variable's query for type {@code query} (such as {@code label_values(metric{...}, label)}),
     *              else empty
     */
    record Variable(String name, String type, String query, boolean multi, boolean includeAll, String allValue) {
    }

    /** A panel with its queries ({@code targets}); rows are not panels here, their collapsed panels are. */
    record Panel(int id, String title, String type, List<Query> queries) {
    }

    /** One panel target. */
    record Query(String refId, String expr, String legendFormat) {

        /** The labels the legend prints ({@code {{page}}}): every series the query returns must carry them. */
        Set<String> legendLabels() {
            Set<String> labels = new LinkedHashSet<>();
            Matcher matcher = LEGEND_LABEL.matcher(legendFormat);
            while (matcher.find()) {
                labels.add(matcher.group(1));
            }
            return labels;
        }
    }

    static DashboardModel read(Path json) throws IOException {
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        List<Variable> variables = new ArrayList<>();
        for (JsonNode variable : root.path("templating").path("list")) {
            JsonNode query = variable.path("query");
            String queryText = query.isTextual() ? query.asText() : query.path("query").asText("");
            variables.add(new Variable(variable.path("name").asText(), variable.path("type").asText(),
                    variable.path("type").asText().equals("query") ? queryText : "",
                    variable.path("multi").asBoolean(false), variable.path("includeAll").asBoolean(false),
                    variable.hasNonNull("allValue") ? variable.path("allValue").asText() : null));
        }
        List<Panel> panels = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            if (panel.path("type").asText().equals("row")) {
                panel.path("panels").forEach(collapsed -> panels.add(panel(collapsed)));
            } else {
                panels.add(panel(panel));
            }
        }
        return new DashboardModel(List.copyOf(variables), List.copyOf(panels));
    }

    private static Panel panel(JsonNode panel) {
        List<Query> queries = new ArrayList<>();
        for (JsonNode target : panel.path("targets")) {
            if (!target.path("hide").asBoolean(false)) {
                queries.add(new Query(target.path("refId").asText(), target.path("expr").asText(""),
                        target.path("legendFormat").asText("")));
            }
        }
        return new Panel(panel.path("id").asInt(), panel.path("title").asText(), panel.path("type").asText(),
                List.copyOf(queries));
    }
}
