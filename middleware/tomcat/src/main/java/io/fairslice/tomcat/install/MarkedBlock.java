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
     * Where the block is in a text: line indexes of its begin and end markers, and its characters: from the start of
     * the begin marker's line to the end of the end marker's line ({@code to}), and past that line's ending
     * ({@code after}: {@code to} when the end marker is the text's last line and has none).
     */
    private record Span(int begin, int end, int from, int to, int after) {
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
     * {@link #write} appended it after a complete last line (see {@link #endsWithNewline(String)} for files that had
     * none: the caller knows from its install record). Returns {@code text} itself when the block is not there.
     */
    public String remove(String text, String where) {
        Span span = find(text, where);
        if (span == null) {
            return text;
        }
        return text.substring(0, span.from) + text.substring(span.after);
    }

    private Span find(String text, String where) {
        List<String> lines = lines(text);
        int begin = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.equals(beginMarker)) {
                if (begin >= 0) {
                    throw broken(where, "a second '" + beginMarker + "' on line " + (i + 1) + " (the first is on line "
                            + (begin + 1) + ")");
                }
                begin = i;
            } else if (line.equals(endMarker)) {
                if (begin < 0 || end >= 0) {
                    throw broken(where, "'" + endMarker + "' on line " + (i + 1) + " without a matching '"
                            + beginMarker + "' before it");
                }
                end = i;
            }
        }
        if (begin >= 0 && end < 0) {
            throw broken(where, "'" + beginMarker + "' on line " + (begin + 1) + " has no '" + endMarker
                    + "' after it");
        }
        if (begin < 0) {
            return null;
        }
        int from = lineStart(text, begin);
        int after = lineStart(text, end + 1); // the text's length when the end marker is its last line
        int to = after;
        if (to > 0 && to <= text.length() && text.charAt(to - 1) == '\n' && to - 1 >= lineStart(text, end)) {
            to--;
            if (to > 0 && text.charAt(to - 1) == '\r' && to - 1 >= lineStart(text, end)) {
                to--;
            }
        }
        return new Span(begin, end, from, to, after);
    }

    /** The offset of line {@code index} (0-based) of {@code text}; its length for the line after the last. */
    private static int lineStart(String text, int index) {
        int at = 0;
        for (int i = 0; i < index; i++) {
            int lf = text.indexOf('\n', at);
            if (lf < 0) {
                return text.length();
            }
            at = lf + 1;
        }
        return at;
    }

    private static IllegalStateException broken(String where, String what) {
        return new IllegalStateException(where + ": fairslice's block is damaged: " + what
                + "; fix or remove the fairslice lines by hand, then run the installer again");
    }

    /** The lines of {@code text} without their line endings; a final newline does not start another line. */
    static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        if (text.isEmpty()) {
            return lines;
        }
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                int end = i > start && text.charAt(i - 1) == '\r' ? i - 1 : i;
                lines.add(text.substring(start, end));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            lines.add(text.substring(start));
        }
        return lines;
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
