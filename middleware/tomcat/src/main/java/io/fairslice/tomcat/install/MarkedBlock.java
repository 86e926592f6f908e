package io.fairslice.tomcat.install;

import java.util.ArrayList;
import java.util.List;

/**
 * A block of lines that fairslice owns inside a file that the operator owns ({@code bin/setenv.sh},
 * {@code bin/setenv.bat}): it starts with a begin marker line and ends with an end marker line, and everything
 * outside it is left byte for byte as it was. Pure text functions, so that install, reinstall and uninstall can be
 * tested without a file system.
 *
 * <p>Line endings follow the file: a file with CRLF line endings gets CRLF lines, one with LF line endings LF, and
 * a new or one-line file the block's default. The block is spliced in and out: the characters outside it are never
 * rewritten, whatever their line endings.
 *
 * @param beginMarker the first line of the block (a comment in the file's language)
 * @param endMarker   the last line of the block
 * @param defaultEol  the line ending for files that have none yet
 */
public record MarkedBlock(String beginMarker, String endMarker, String defaultEol) {

    /** The block for POSIX shell scripts ({@code setenv.sh}). */
    public static final MarkedBlock SHELL = new MarkedBlock("# >>> fairslice >>>", "# <<< fairslice <<<", "\n");

    /** The block for Windows batch files ({@code setenv.bat}). */
    public static final MarkedBlock BATCH = new MarkedBlock("rem >>> fairslice >>>", "rem <<< fairslice <<<", "\r\n");

    public MarkedBlock {
        if (!defaultEol.equals("\n") && !defaultEol.equals("\r\n")) {
            throw new IllegalArgumentException("the default line ending must be LF or CRLF");
        }
        if (beginMarker.isBlank() || endMarker.isBlank() || beginMarker.equals(endMarker)) {
            throw new IllegalArgumentException("markers must be two different non-blank lines, got '" + beginMarker
                    + "' and '" + endMarker + "'");
        }
    }

    /**
     * Where the block is in a text, in characters: from the start of the begin marker's line ({@code from}) to the
     * end of the end marker's line ({@code to}), and past that line's ending ({@code after}; {@code to} when the end
     * marker is the text's last line and has none).
     */
    private record Span(int from, int to, int after) {
    }

    /** Whether {@code text} holds the block. Throws {@link IllegalStateException} when the markers are broken. */
    public boolean isIn(String text, String where) {
        return find(text, where) != null;
    }

    /**
     * {@code text} with the block's body set to {@code body}: replaced where the block is, else appended at the end
     * (after a newline if the text does not end with one). {@code body} is given without markers, with LF line
     * endings. Returns {@code text} itself when the block already has that body.
     */
    public String write(String text, List<String> body, String where) {
        String eol = lineEnding(text, defaultEol);
        Span span = find(text, where);
        List<String> lines = new ArrayList<>();
        lines.add(beginMarker);
        lines.addAll(body);
        lines.add(endMarker);
        String block = String.join(eol, lines);
        if (span == null) {
            return text + (text.isEmpty() || endsWithNewline(text) ? "" : eol) + block + eol;
        }
        if (text.substring(span.from, span.to).equals(block)) {
            return text;
        }
        return text.substring(0, span.from) + block + text.substring(span.to);
    }

    /**
     * {@code text} without the block. Where the block was the end of the file, the result ends with a newline:
     * {@link #write} appended it after a complete last line (see {@link #remove(String, String, boolean)} for files
     * that had none). Returns {@code text} itself when the block is not there.
     */
    public String remove(String text, String where) {
        return remove(text, where, false);
    }

    /**
     * {@code text} without the block; {@code lastLineUnfinished}: the text's last line had no newline when
     * {@link #write} appended the block (the caller knows from its install record), so the newline written before the
     * block goes too while the block still ends the text. Lines added below the block keep the newline before them:
     * without it the last line of the text as it was and the first of theirs would be one line.
     */
    public String remove(String text, String where, boolean lastLineUnfinished) {
        Span span = find(text, where);
        if (span == null) {
            return text;
        }
        String before = text.substring(0, span.from);
        if (lastLineUnfinished && span.after == text.length() && endsWithNewline(before)) {
            before = before.substring(0, before.length() - (before.endsWith("\r\n") ? 2 : 1));
        }
        return before + text.substring(span.after);
    }

    private Span find(String text, String where) {
        int begin = -1; // line numbers (1-based) of the markers, for the messages
        int end = -1;
        int from = -1;
        int to = -1;
        int after = -1;
        int line = 0;
        for (int start = 0; start < text.length(); ) {
            line++;
            int lf = text.indexOf('\n', start);
            int next = lf < 0 ? text.length() : lf + 1;
            int contentEnd = lf < 0 ? text.length() : lf > start && text.charAt(lf - 1) == '\r' ? lf - 1 : lf;
            String content = text.substring(start, contentEnd).strip();
            if (content.equals(beginMarker)) {
                if (begin >= 0) {
                    throw broken(where, "a second '" + beginMarker + "' on line " + line + " (the first is on line "
                            + begin + ")");
                }
                begin = line;
                from = start;
            } else if (content.equals(endMarker)) {
                if (begin < 0 || end >= 0) {
                    throw broken(where, "'" + endMarker + "' on line " + line + " without a matching '"
                            + beginMarker + "' before it");
                }
                end = line;
                to = contentEnd;
                after = next;
            }
            start = next;
        }
        if (begin >= 0 && end < 0) {
            throw broken(where, "'" + beginMarker + "' on line " + begin + " has no '" + endMarker + "' after it");
        }
        return begin < 0 ? null : new Span(from, to, after);
    }

    private static IllegalStateException broken(String where, String what) {
        return new IllegalStateException(where + ": fairslice's block is damaged: " + what
                + "; fix or remove the fairslice lines by hand, then run the installer again");
    }

    static String lineEnding(String text, String fallback) {
        int lf = text.indexOf('\n');
        if (lf < 0) {
            return fallback;
        }
        return lf > 0 && text.charAt(lf - 1) == '\r' ? "\r\n" : "\n";
    }

    /** Whether {@code text} ends with a newline; {@link #write} adds one to a last line that has none. */
    static boolean endsWithNewline(String text) {
        return text.endsWith("\n");
    }
}
