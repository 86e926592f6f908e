import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded closed-loop load for overload-snapshot.sh (single-file program: java ClosedLoop.java ...): CLIENTS
 * clients per page, each sending its next request when the previous one is answered, for SECONDS seconds, on
 * loopback only. Prints responses per page and status; exits with 1 when a page got no 2xx answer at all.
 *
 * usage: java ClosedLoop.java http://127.0.0.1:PORT SECONDS /light=30 /heavy=10 ...
 */
public class ClosedLoop {
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            throw new IllegalArgumentException("usage: ClosedLoop BASE-URL SECONDS PAGE=CLIENTS...");
        }
        URI base = URI.create(args[0]);
        if (!List.of("127.0.0.1", "localhost", "[::1]").contains(base.getHost())) {
            throw new IllegalArgumentException("loopback targets only, got " + base.getHost());
        }
        long seconds = Long.parseLong(args[1]);
        if (seconds < 1 || seconds > 600) {
            throw new IllegalArgumentException("SECONDS must be 1..600, got " + seconds);
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        List<Thread> clients = new ArrayList<>();
        for (int a = 2; a < args.length; a++) {
            String[] pageAndCount = args[a].split("=", 2);
            URI uri = base.resolve(pageAndCount[0]);
            for (int i = 0; i < Integer.parseInt(pageAndCount[1]); i++) {
                Thread client = new Thread(() -> {
                    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build();
                    while (System.nanoTime() < deadline) {
                        String key;
                        try {
                            key = pageAndCount[0] + " " + http.send(request, HttpResponse.BodyHandlers.discarding())
                                    .statusCode();
                        } catch (Exception e) {
                            key = pageAndCount[0] + " " + e.getClass().getSimpleName();
                        }
                        counts.computeIfAbsent(key, k -> new LongAdder()).increment();
                    }
                });
                client.setDaemon(true);
                clients.add(client);
            }
        }
        clients.forEach(Thread::start);
        for (Thread client : clients) {
            client.join(Duration.ofSeconds(seconds + 90).toMillis());
        }
        Map<String, Long> sorted = new TreeMap<>();
        counts.forEach((k, v) -> sorted.put(k, v.sum()));
        sorted.forEach((k, v) -> System.out.printf("%-24s %8d  (%.1f/s)%n", k, v, v / (double) seconds));
        // a page that got no 2xx at all (the server down, a wrong port) is no load: the snapshot must not be taken
        int status = 0;
        for (int a = 2; a < args.length; a++) {
            String page = args[a].split("=", 2)[0];
            String answered = java.util.regex.Pattern.quote(page) + " 2\\d\\d";
            if (sorted.keySet().stream().noneMatch(k -> k.matches(answered))) {
                System.err.println("ClosedLoop: " + page + " got no 2xx answer in " + seconds + " s");
                status = 1;
            }
        }
        System.exit(status);
    }
}
