package io.fairslice.tomcat;

import java.util.regex.Pattern;

/**
 * TCP ports as fairslice's settings write them: digits 0-9 only, 1..65535. The metrics servlet reads
 * {@code metrics.ports} with it and the installer {@code --metrics-ports}, which it writes there; each names its own
 * setting when it refuses a value. Integer.parseInt is not the rule: it also takes a sign and other scripts' digits
 * ('+9404', Arabic-Indic), which the servlet would then be given in a form it does not read.
 */
public final class TcpPorts {

    public static final int MIN = 1;
    public static final int MAX = 65535;
    /** At most nine digits: any such number fits an int. */
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,9}");

    private TcpPorts() {
    }

    /** The number {@code text} writes in digits 0-9 only (at most nine of them), or -1 for any other text. */
    public static int number(String text) {
        return text != null && DIGITS.matcher(text).matches() ? Integer.parseInt(text) : -1;
    }

    /** Whether {@code port} is a TCP port: 1..65535. */
    public static boolean isPort(int port) {
        return port >= MIN && port <= MAX;
    }

    /** The TCP port {@code text} writes in digits 0-9 only, or -1 if it writes none. */
    public static int parse(String text) {
        int port = number(text);
        return isPort(port) ? port : -1;
    }
}
