package io.fairslice.tomcat.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MarkedBlockTest {

    private static final MarkedBlock SH = MarkedBlock.SHELL;
    private static final List<String> BODY = List.of("CATALINA_OPTS=\"$CATALINA_OPTS -Da=1\"");

    @Test
    void shouldAppendTheBlockAfterTheOperatorsLines() {
        String text = "export JAVA_HOME=/opt/jdk\n";
        assertThat(SH.write(text, BODY, "setenv.sh")).isEqualTo("export JAVA_HOME=/opt/jdk\n"
                + "# >>> fairslice >>>\nCATALINA_OPTS=\"$CATALINA_OPTS -Da=1\"\n# <<< fairslice <<<\n");
    }

    @Test
    void shouldRestoreTheOriginalTextExactlyWhenTheBlockIsRemoved() {
        String text = "#!/bin/sh\nUMASK=0027\n";
        String installed = SH.write(text, BODY, "setenv.sh");
        assertThat(SH.remove(installed, "setenv.sh")).isEqualTo(text);
    }

    @Test
    void shouldReplaceTheBlockInPlaceAndKeepLinesAfterIt() {
        String installed = SH.write("A=1\n", BODY, "setenv.sh") + "B=2\n";
        String updated = SH.write(installed, List.of("X=3"), "setenv.sh");
        assertThat(updated).isEqualTo("A=1\n# >>> fairslice >>>\nX=3\n# <<< fairslice <<<\nB=2\n");
        assertThat(SH.remove(updated, "setenv.sh")).isEqualTo("A=1\nB=2\n");
    }

    @Test
    void shouldReturnTheSameTextWhenTheBlockIsAlreadyUpToDate() {
        String installed = SH.write("A=1\n", BODY, "setenv.sh");
        assertThat(SH.write(installed, BODY, "setenv.sh")).isSameAs(installed);
    }

    @Test
    void shouldKeepWindowsLineEndingsInBatchFiles() {
        String text = "@echo off\r\nset X=1\r\n";
        String installed = MarkedBlock.BATCH.write(text, List.of("set Y=2"), "setenv.bat");
        assertThat(installed).isEqualTo("@echo off\r\nset X=1\r\nrem >>> fairslice >>>\r\nset Y=2\r\n"
                + "rem <<< fairslice <<<\r\n");
        assertThat(MarkedBlock.BATCH.remove(installed, "setenv.bat")).isEqualTo(text);
    }

    @Test
    void shouldAddANewlineBeforeTheBlockWhenTheLastLineHasNone() {
        assertThat(SH.write("A=1", BODY, "setenv.sh")).startsWith("A=1\n# >>> fairslice >>>\n");
    }

    @Test
    void shouldTakeAwayTheNewlineAddedBeforeTheBlockOnlyWhileTheBlockEndsTheText() {
        assertThat(SH.remove(SH.write("A=1", BODY, "setenv.sh"), "setenv.sh", true)).isEqualTo("A=1");
        assertThat(MarkedBlock.BATCH.remove(MarkedBlock.BATCH.write("set A=1\r\nset B=2", BODY, "setenv.bat"),
                "setenv.bat", true)).isEqualTo("set A=1\r\nset B=2");
        // the operator's lines below the block, with and without their own final newline
        String below = SH.write("A=1", BODY, "setenv.sh");
        assertThat(SH.remove(below + "B=2\n", "setenv.sh", true)).isEqualTo("A=1\nB=2\n");
        assertThat(SH.remove(below + "B=2", "setenv.sh", true)).isEqualTo("A=1\nB=2");
    }

    @Test
    void shouldRefuseABeginMarkerWithoutEnd() {
        assertThatThrownBy(() -> SH.write("A=1\n# >>> fairslice >>>\nB=2\n", BODY, "bin/setenv.sh"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bin/setenv.sh")
                .hasMessageContaining("line 2 has no '# <<< fairslice <<<'");
    }

    @Test
    void shouldRefuseAnEndMarkerBeforeItsBegin() {
        assertThatThrownBy(() -> SH.remove("# <<< fairslice <<<\n# >>> fairslice >>>\n", "setenv.sh"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("on line 1 without a matching");
    }

    @Test
    void shouldRefuseTwoBlocks() {
        String twice = SH.write("", BODY, "s") + SH.write("", BODY, "s");
        assertThatThrownBy(() -> SH.isIn(twice, "setenv.sh")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a second '# >>> fairslice >>>' on line 4");
    }

    /** Found in review (2026-11-27): the whole file was re-joined with its first line's ending. */
    @Test
    void shouldLeaveEveryCharacterOutsideTheBlockAsItWas() {
        String mixed = "a=1\r\nb=2\n";
        String installed = SH.write(mixed, BODY, "setenv.sh");
        assertThat(installed).startsWith(mixed);
        assertThat(SH.remove(installed, "setenv.sh")).isEqualTo(mixed);

        String after = SH.write("A=1\n", BODY, "setenv.sh") + "tail=1"; // the operator's last line, no newline
        String updated = SH.write(after, List.of("X=3"), "setenv.sh");
        assertThat(updated).isEqualTo("A=1\n# >>> fairslice >>>\nX=3\n# <<< fairslice <<<\ntail=1");
        assertThat(SH.remove(updated, "setenv.sh")).isEqualTo("A=1\ntail=1");
    }

    @Test
    void shouldLeaveTextWithoutTheBlockAlone() {
        String text = "A=1\n";
        assertThat(SH.remove(text, "setenv.sh")).isSameAs(text);
    }
}
