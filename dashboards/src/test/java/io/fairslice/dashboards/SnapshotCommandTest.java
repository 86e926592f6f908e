package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The command line of the terminal snapshot (generator/snapshot.ts, `npm run snapshot`, docs/dashboards.md), compiled
 * with the module's TypeScript and run with node; no Prometheus is needed for what it checks.
 */
class SnapshotCommandTest {

    @BeforeAll
    static void build() {
        Tool.Result result = Tool.require("npm").run(ModuleFiles.moduleDir(), 300, "run", "--silent", "build");
        assertThat(result.exitCode()).as("%s", result).isZero();
    }

    private static Tool.Result snapshot(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "build/generator/snapshot.js";
        System.arraycopy(args, 0, command, 1, args.length);
        return Tool.require("node").run(ModuleFiles.moduleDir(), 60, command);
    }

    /** It said "unknown option '--help'" and exited with 1. */
    @Test
    void shouldPrintItsUsageOnHelp() {
        for (String option : new String[] {"--help", "-h"}) {
            Tool.Result result = snapshot("--prometheus", "http://127.0.0.1:9", option);

            assertThat(result.exitCode()).as("%s", result).isZero();
            assertThat(result.output()).as("%s", result).startsWith("usage: node build/generator/snapshot.js")
                    .contains("--prometheus URL", "--rate-interval D", "--application PATH", "--dashboard FILE")
                    .doesNotContain("snapshot: ");
        }
    }

    @Test
    void shouldRefuseAnUnknownOptionWithExitStatus2AndPointToHelp() {
        Tool.Result result = snapshot("--prometeus", "http://127.0.0.1:9");

        assertThat(result.exitCode()).as("%s", result).isEqualTo(2);
        assertThat(result.output()).as("%s", result)
                .contains("snapshot: unknown option '--prometeus' (--help lists the options)");
    }
}
