import java.net.URI;
import java.net.http.*;
import java.time.Duration;
import java.util.concurrent.atomic.*;
/** Closed-loop load: Load URL THREADS WARMUP_S MEASURE_S -> prints req/s and mean latency. */
public class Load {
  public static void main(String[] a) throws Exception {
    URI uri = URI.create(a[0]); int threads = Integer.parseInt(a[1]);
    long warm = Long.parseLong(a[2]) * 1_000_000_000L, measure = Long.parseLong(a[3]) * 1_000_000_000L;
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build();
    long start = System.nanoTime(), from = start + warm, to = from + measure;
    AtomicLong done = new AtomicLong(), nanos = new AtomicLong(), failed = new AtomicLong();
    Thread[] ts = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      ts[i] = new Thread(() -> {
        while (true) {
          long t0 = System.nanoTime(); if (t0 >= to) return;
          try { HttpResponse<byte[]> r = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
            long t1 = System.nanoTime();
            if (r.statusCode() != 200) failed.incrementAndGet();
            else if (t0 >= from && t1 <= to) { done.incrementAndGet(); nanos.addAndGet(t1 - t0); }
          } catch (Exception e) { failed.incrementAndGet(); }
        }
      });
      ts[i].start();
    }
    for (Thread t : ts) t.join();
    System.out.printf("%s threads=%d: %.1f req/s, mean %.3f ms, failed %d%n", uri.getPath(), threads,
        done.get() / (measure / 1e9), nanos.get() / 1e6 / Math.max(1, done.get()), failed.get());
  }
}
