package io.fairslice.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner of the tests' external programs: what a run leaves behind. */
class ToolTest {

    /** A tool's temporary files (promtool's rule-test storage) go to a folder of the run, removed after it. */
    @Test
    void shouldGiveEachRunATemporaryFolderOfItsOwnAndRemoveItAfterwards(@TempDir Path dir) {
        Tool.Result result = Tool.require("sh").run(dir, 30, "-c",
                "mkdir \"$TMPDIR/test_storage_1\" && touch \"$TMPDIR/test_storage_1/x\" && printf %s \"$TMPDIR\"");

        assertThat(result.exitCode()).as("%s", result).isZero();
        Path tmp = Path.of(result.output());
        assertThat(tmp.getFileName().toString()).as("%s", result).startsWith("fairslice-tool-");
        assertThat(Files.exists(tmp)).as("%s, removed", tmp).isFalse();
    }
}
