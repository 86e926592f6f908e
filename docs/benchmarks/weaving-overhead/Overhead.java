import io.fairslice.experiments.app.*;
import java.nio.file.*;
import javax.xml.parsers.*;
import org.w3c.dom.*;
public class Overhead {
  public static void main(String[] a) throws Exception {
    Path dir = Files.createTempDirectory("ovh");
    Path doc = CatalogueGenerator.ensure(dir, 2005, 2L*1024*1024);
    Document d;
    try (var in = Files.newInputStream(doc)) {
      d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
    }
    var m = HeavyServlet.class.getDeclaredMethod("traverse", Document.class); m.setAccessible(true);
    int sink = 0;
    for (int round = 0; round < 4; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < 2000; i++) sink += LightServlet.fibonacci(25);
      long t1 = System.nanoTime();
      for (int i = 0; i < 200; i++) sink += (int) ((HeavyServlet.Summary) m.invoke(null, d)).nodes();
      long t2 = System.nanoTime();
      if (round >= 1) System.out.printf("round %d: fib(25) %.1f us, traverse %.2f ms%n", round,
          (t1-t0)/2000/1e3, (t2-t1)/200/1e6);
    }
    System.out.println(sink == 42 ? "" : "done");
  }
}
