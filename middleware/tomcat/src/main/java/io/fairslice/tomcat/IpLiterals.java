package io.fairslice.tomcat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * IP literals as server.xml and the container write them, parsed without ever looking a name up: the installer reads
 * a connector's address with it, and the metrics servlet the addresses of a request.
 */
public final class IpLiterals {

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    /** Starts with a hex digit or ':' and has a ':': InetAddress parses it as IPv6 or refuses it, never looks it up. */
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[\\w.-]+)?");

    private IpLiterals() {
    }

    /** {@code address} when it is an IP literal (IPv6 with or without brackets), else null; names are not resolved. */
    public static InetAddress parse(String address) {
        if (address == null) {
            return null;
        }
        String a = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1)
                : address;
        try {
            Matcher v4 = IPV4.matcher(a);
            if (v4.matches()) {
                byte[] bytes = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int octet = Integer.parseInt(v4.group(i + 1));
                    if (octet > 255) {
                        return null;
                    }
                    bytes[i] = (byte) octet;
                }
                return InetAddress.getByAddress(bytes);
            }
            return IPV6.matcher(a).matches() ? InetAddress.getByName(a) : null;
        } catch (UnknownHostException e) {
            return null; // not a valid IPv6 literal, or a zone naming no interface of this host
        }
    }
}
