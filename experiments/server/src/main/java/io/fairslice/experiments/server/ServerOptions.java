package io.fairslice.experiments.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Command-line options of {@code ./fairslice serve}.
 *
 * @param port        listening port (0 picks a free one)
 * @param address     listening address; loopback by default, as /metrics is not for public connectors
 * @param maxThreads  Tomcat worker threads; keep it above the client population
 * @param appSettings study application settings ({@code study.*}), passed as context parameters
 * @param help        {@code --help} was given
 */
public record ServerOptions(int port, String address, int maxThreads, Map<String, String> appSettings,
                            boolean help) {

    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;

    public static final String USAGE = """
            usage: ./fairslice serve [options]
              --port N            port to listen on (default 8080; 0 picks a free port)
              --address A         address to listen on (default 127.0.0.1)
              --max-threads N     Tomcat worker threads (default 200)
              --document-size S   size of /heavy's XML document, e.g. 2MB or 10MB (default 2MB)
              --help              this text
            """;

    public ServerOptions {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be 0..65535, got " + port);
        }
        if (maxThreads < 1 || maxThreads > 10_000) {
            throw new IllegalArgumentException("--max-threads must be 1..10000, got " + maxThreads);
        }
        appSettings = Map.copyOf(appSettings);
    }

    public static ServerOptions defaults() {
        return new ServerOptions(DEFAULT_PORT, "127.0.0.1", DEFAULT_MAX_THREADS, Map.of(), false);
    }

    public static ServerOptions parse(String... args) {
        int port = DEFAULT_PORT;
        String address = "127.0.0.1";
        int maxThreads = DEFAULT_MAX_THREADS;
        Map<String, String> app = new LinkedHashMap<>();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--port" -> port = parseInt(arg, value(args, ++i, arg));
                case "--address" -> address = value(args, ++i, arg);
                case "--max-threads" -> maxThreads = parseInt(arg, value(args, ++i, arg));
                case "--document-size" -> app.put("study.heavy.bytes", value(args, ++i, arg));
                case "--help", "-h" -> help = true;
                default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
            }
        }
        return new ServerOptions(port, address, maxThreads, app, help);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int parseInt(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a whole number, got '" + value + "'");
        }
    }
}
