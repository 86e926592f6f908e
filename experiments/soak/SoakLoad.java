import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The soak benchmark's load and sampler (run by experiments/soak.sh with the JDK's source launcher, no build): an
 * open-model overload (Poisson arrivals on /light, /heavy and a stream of never-repeating scanner URLs) against a
 * running study server, and every few seconds one CSV row of what must stay flat: heap, old generation, live
 * data after GC, threads, resident memory, metric series, route table size, requests in flight. At the end: the
 * first row after warm-up against the last, and the client's counts reconciled (sent = 200 + 503 + 404 + other).
 * A sample whose scrape failed five times is left out (counted in scrape_failures).
 */
public final class SoakLoad {

    record Options(String base, long pid, long seconds, long sampleSeconds, Path csv, double light, double heavy,
                   double scan, int maxOutstanding) {
    }

    /** The options and their defaults; any other is refused but {@code --minutes}, which replaces --seconds. */
    private static final Map<String, String> DEFAULTS = Map.of("--url", "http://127.0.0.1:8080", "--pid", "0",
            "--seconds", "1800", "--sample", "10", "--csv", "soak.csv", "--light", "300", "--heavy", "60", "--scan",
            "20", "--max-outstanding", "3000");
    /**
     * The longest run and sample period, in seconds: a year, far beyond any soak (hours) and far below where the run's
     * end in nanoseconds ({@code start + toNanos(seconds)}) overflows a long, which it did unchecked: {@code --seconds
     * 1000000000000} ended at once, after one sample, and reported a run of that many seconds.
     */
    private static final long MAX_SECONDS = TimeUnit.DAYS.toSeconds(365);
    /**
     * The highest rate an option may ask for, in requests per second: loadgen's bound too, far beyond what one client
     * with --max-outstanding requests in flight sends to one server.
     */
    private static final double MAX_RATE = 100_000;
    /**
     * Numbers as io.fairslice.experiments.server.Numbers reads the experiments' others, and the middleware its
     * configuration (this file runs alone in the source launcher, without the modules): ASCII digits, an optional
     * sign and, in a decimal, a point and an exponent ({@code 12.5}, {@code 5e-2}), finite. Double.parseDouble took
     * {@code 1d}, {@code 0x1p3} and {@code NaN}, and Long.parseLong non-ASCII digits.
     */
    private static final Pattern WHOLE = Pattern.compile("[-+]?[0-9]+");
    private static final Pattern DECIMAL =
            Pattern.compile("[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?");

    /**
     * Runs the load, or with {@code --check} first only reads the options: soak.sh asks so before it starts the server
     * (a bad rate stopped the load only once the server ran).
     */
    public static void main(String[] args) throws Exception {
        boolean check = args.length > 0 && args[0].equals("--check");
        Options o;
        try {
            o = options(check ? Arrays.copyOfRange(args, 1, args.length) : args);
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (!check) {
            new SoakLoad(o).run();
        }
    }

    /**
     * Reads the options; a bad one is an IllegalArgumentException naming it and the value, one given twice naming it
     * and both values.
     */
    static Options options(String[] args) {
        Map<String, String> a = new TreeMap<>(DEFAULTS);
        Set<String> names = new TreeSet<>(DEFAULTS.keySet());
        names.add("--minutes");
        Set<String> given = new HashSet<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!names.contains(args[i])) {
                throw new IllegalArgumentException("unknown option '" + args[i] + "' (the options: "
                        + String.join(", ", names) + ")");
            }
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            if (!given.add(args[i])) {
                // the later value was taken without a word; every other entry point of the project refuses it
                throw new IllegalArgumentException(args[i] + " given twice, '" + a.get(args[i]) + "' and '"
                        + args[i + 1] + "'");
            }
            a.put(args[i], args[i + 1]);
        }
        double light = rate(a, "--light");
        double heavy = rate(a, "--heavy");
        double scan = rate(a, "--scan");
        if (light + heavy + scan <= 0) {
            throw new IllegalArgumentException("--light, --heavy and --scan are all 0: no request would be sent");
        }
        if (given.contains("--minutes") && given.contains("--seconds")) {
            throw new IllegalArgumentException("--minutes and --seconds both given: give one");
        }
        long seconds = given.contains("--minutes")
                ? TimeUnit.MINUTES.toSeconds(period(a, "--minutes", TimeUnit.MINUTES))
                : period(a, "--seconds", TimeUnit.SECONDS);
        return new Options(a.get("--url"), whole(a, "--pid", 0, Long.MAX_VALUE), seconds,
                period(a, "--sample", TimeUnit.SECONDS), Path.of(a.get("--csv")), light, heavy, scan,
                (int) whole(a, "--max-outstanding", 1, Integer.MAX_VALUE));
    }

    /** A run's length or sample period in {@code unit}: 1 up to {@link #MAX_SECONDS}. */
    private static long period(Map<String, String> a, String option, TimeUnit unit) {
        long max = unit.convert(MAX_SECONDS, TimeUnit.SECONDS);
        return whole(a, option, 1, max, "1.." + max + " (" + TimeUnit.SECONDS.toDays(MAX_SECONDS) + " days)");
    }

    private static long whole(Map<String, String> a, String option, long min, long max) {
        return whole(a, option, min, max, max == Long.MAX_VALUE ? ">= " + min : min + ".." + max);
    }

    private static long whole(Map<String, String> a, String option, long min, long max, String range) {
        String value = a.get(option);
        if (WHOLE.matcher(value).matches()) {
            try {
                long n = Long.parseLong(value);
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // beyond a long: refused below
            }
        }
        throw new IllegalArgumentException(option + " must be a whole number " + range + ", got '" + value + "'");
    }

    /**
     * Requests per second: a decimal from 0 to {@link #MAX_RATE}. 400 digits were read as Infinity, and any rate past
     * about 10^9 made the arrivals' step round to 0 ns, so that the load never ended ({@code --light 1e12}).
     */
    private static double rate(Map<String, String> a, String option) {
        String value = a.get(option);
        double rate = DECIMAL.matcher(value).matches() ? Double.parseDouble(value) : Double.NaN;
        if (!(rate >= 0 && rate <= MAX_RATE)) {
            throw new IllegalArgumentException(option + " must be a rate (requests/s) such as 300 or 12.5, at most "
                    + (long) MAX_RATE + ", got '" + value + "'");
        }
        return rate;
    }

    private final Options o;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final LongAdder sent = new LongAdder();
    private final LongAdder ok = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder notFound = new LongAdder();
    private final LongAdder other = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final List<String> firstErrors = Collections.synchronizedList(new ArrayList<>());

    private SoakLoad(Options o) {
        this.o = o;
    }

    private static final String HEADER = "seconds,heap_used_mb,old_gen_used_mb,live_after_gc_mb,threads_jvm,"
            + "threads_os,rss_mb,metric_series,fairslice_series,routes,inflight,sent,ok,rejected,not_found,failed,"
            + "skipped,outstanding,scrape_failures";
    private final LongAdder scrapeFailures = new LongAdder();

    void run() throws Exception {
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(o.seconds());
        List<double[]> rows = new ArrayList<>();
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(o.csv()))) {
            csv.println(HEADER);
            Thread sampler = new Thread(() -> {
                long next = start;
                while (true) {
                    next += TimeUnit.SECONDS.toNanos(o.sampleSeconds());
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    double[] row = sample((System.nanoTime() - start) / 1e9);
                    if (row != null) {
                        synchronized (rows) {
                            rows.add(row);
                        }
                        csv.println(format(row));
                        csv.flush();
                    }
                    if (System.nanoTime() >= end) {
                        return;
                    }
                }
            }, "soak-sampler");
            sampler.setDaemon(true);
            sampler.start();
            drive(start, end);
            sampler.join(TimeUnit.SECONDS.toMillis(o.sampleSeconds() + 30));
            sampler.interrupt();
        }
        long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (outstanding.get() > 0 && System.nanoTime() < drainDeadline) {
            Thread.sleep(50);
        }
        summarise(rows);
    }

    /** Poisson arrivals over the three streams until {@code end}; never more than maxOutstanding in flight. */
    private void drive(long start, long end) {
        SplittableRandom random = new SplittableRandom(30);
        double total = o.light() + o.heavy() + o.scan();
        long next = start;
        long scanId = 0;
        while (next < end) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            double step = -Math.log(1 - random.nextDouble()) / total * 1e9;
            // a step past the run's end (a tiny rate) ends it: added as a long, it overflowed to a time long past
            next = step >= end - next ? end : next + (long) step;
            double x = random.nextDouble() * total;
            // the scanner alternates: a fresh unmapped path (Tomcat answers 404 before any filter runs) and a mapped
            // page under a fresh query string and path parameter (through the filter: must not grow anything)
            long id = scanId++;
            String path = x < o.light() ? "/light" : x < o.light() + o.heavy() ? "/heavy"
                    : id % 2 == 0 ? "/scan/u" + Long.toString(id, 36) + "x/p?session=" + id
                    : "/light2;jsessionid=S" + id + "?q=" + Long.toString(id, 36);
            if (outstanding.get() >= o.maxOutstanding()) {
                skipped.increment(); // the client is saturated: counted, never silently dropped
                continue;
            }
            sent.increment();
            outstanding.incrementAndGet();
            client.sendAsync(HttpRequest.newBuilder(URI.create(o.base() + path)).timeout(Duration.ofSeconds(60))
                    .build(), HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                        if (e != null) {
                            failed.increment();
                            if (firstErrors.size() < 5) {
                                firstErrors.add(path + ": " + e);
                            }
                        } else {
                            switch (r.statusCode()) {
                                case 200 -> ok.increment();
                                case 503 -> rejected.increment();
                                case 404 -> notFound.increment();
                                default -> other.increment();
                            }
                        }
                        outstanding.decrementAndGet();
                    });
        }
    }

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s+(\\S+)");

    /** One row: the server's own meters from /metrics, its process from /proc, the client's counts. */
    private double[] sample(double seconds) {
        String text = null;
        for (int attempt = 0; attempt < 5 && text == null; attempt++) {
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(o.base() + "/metrics"))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    text = r.body();
                } else {
                    scrapeFailures.increment(); // e.g. 503: the scrape itself was shed
                    Thread.sleep(200);
                }
            } catch (IOException e) {
                scrapeFailures.increment();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        if (text == null) {
            return null;
        }
        double heap = 0, old = 0, live = 0, threads = 0, routes = 0, inflight = 0;
        int series = 0, fairslice = 0;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.find()) {
                continue;
            }
            series++;
            String name = m.group(1);
            String labels = m.group(2) == null ? "" : m.group(2);
            double v = Double.parseDouble(m.group(3));
            if (name.startsWith("fairslice_")) {
                fairslice++;
            }
            switch (name) {
                case "jvm_memory_used_bytes" -> {
                    if (labels.contains("area=\"heap\"")) {
                        heap += v;
                        if (labels.contains("Tenured") || labels.contains("Old")) {
                            old += v;
                        }
                    }
                }
                case "jvm_gc_live_data_size_bytes" -> live = v;
                case "jvm_threads_live_threads" -> threads = v;
                case "fairslice_classify_routes" -> routes += v;
                case "fairslice_requests_inflight" -> inflight += v;
                default -> {
                }
            }
        }
        double osThreads = -1, rss = -1;
        if (o.pid() > 0) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(o.pid()), "status"))) {
                    if (line.startsWith("Threads:")) {
                        osThreads = Double.parseDouble(line.substring(8).trim());
                    } else if (line.startsWith("VmRSS:")) {
                        rss = Double.parseDouble(line.substring(6).trim().split("\\s+")[0]) / 1024;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the server is gone or /proc is not there: the columns read -1
            }
        }
        double mb = 1024 * 1024;
        return new double[] {seconds, heap / mb, old / mb, live / mb, threads, osThreads, rss, series, fairslice,
                routes, inflight, sent.sum(), ok.sum(), rejected.sum(), notFound.sum(), failed.sum(), skipped.sum(),
                outstanding.get(), scrapeFailures.sum()};
    }

    private static String format(double[] row) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < row.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(row[i] == Math.rint(row[i]) ? Long.toString((long) row[i])
                    : String.format(Locale.ROOT, "%.1f", row[i]));
        }
        return b.toString();
    }

    private void summarise(List<double[]> rows) {
        String[] names = HEADER.split(",");
        System.out.printf(Locale.ROOT, "soak: %d samples every %d s over %d s (CSV %s)%n", rows.size(),
                o.sampleSeconds(), o.seconds(), o.csv());
        if (rows.size() >= 2) {
            // warm-up: the first sixth of the run (JIT, route table filling, heap growing to its working size)
            double[] first = rows.get(Math.min(rows.size() - 1, Math.max(1, rows.size() / 6)));
            double[] last = rows.get(rows.size() - 1);
            System.out.printf(Locale.ROOT, "%-18s %12s %12s %12s %12s%n", "", "after warm-up", "end", "change",
                    "max");
            for (int i = 1; i <= 10; i++) {
                double max = Double.NEGATIVE_INFINITY;
                for (double[] r : rows) {
                    if (r[0] >= first[0]) {
                        max = Math.max(max, r[i]);
                    }
                }
                System.out.printf(Locale.ROOT, "%-18s %12.1f %12.1f %+12.1f %12.1f%n", names[i], first[i], last[i],
                        last[i] - first[i], max);
            }
            System.out.printf(Locale.ROOT, "(after warm-up = the sample at %.0f s; end = the sample at %.0f s)%n",
                    first[0], last[0]);
        }
        long answered = ok.sum() + rejected.sum() + notFound.sum() + other.sum() + failed.sum();
        System.out.printf(Locale.ROOT, "client: sent %d = 200 %d + 503 %d + 404 %d + other %d + failed %d (%s); "
                        + "not sent (client saturated) %d; still outstanding %d%n", sent.sum(), ok.sum(),
                rejected.sum(), notFound.sum(), other.sum(), failed.sum(),
                answered == sent.sum() ? "reconciled" : "NOT reconciled", skipped.sum(), outstanding.get());
        if (!firstErrors.isEmpty()) {
            System.out.println("first failures: " + firstErrors);
        }
    }
}
