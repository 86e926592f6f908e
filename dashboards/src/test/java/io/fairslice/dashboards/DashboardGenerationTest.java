package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The dashboard generator (TypeScript, Grafana Foundation SDK): `npm run check` compiles it, regenerates the JSON and
 * compares it with the committed grafana/*.json, then type-checks the committed JSON against @grafana/schema. The
 * toolchain comes from package-lock.json (`npm ci`, run by Maven before the tests).
 */
class DashboardGenerationTest {

    @Test
    void shouldMatchTheCommittedJsonAndTypeCheckAgainstGrafanaSchema() {
        assertThat(ModuleFiles.moduleDir().resolve("node_modules").resolve("@grafana"))
                .as("node_modules: run `npm ci` in dashboards/ (Maven does it before the tests)")
                .isDirectory();

        Tool.Result result = Tool.require("npm").run(ModuleFiles.moduleDir(), 300, "run", "--silent", "check");

        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.output()).as("%s", result).contains("fairslice-overview.json matches the generator");
    }
}
