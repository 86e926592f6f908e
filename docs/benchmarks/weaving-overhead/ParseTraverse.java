package io.fairslice.experiments.app;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;

/** The heavy page's two phases timed apart: the 2 MB parse, then the first traversal of the fresh DOM. */
public class ParseTraverse {
    public static void main(String[] a) throws Exception {
        Path dir = Files.createTempDirectory("pt");
        Path doc = CatalogueGenerator.ensure(dir, 2005, 2L * 1024 * 1024);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        long sink = 0;
        for (int round = 0; round < 4; round++) {
            long parse = 0, first = 0, second = 0;
            int n = 50;
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                Document d;
                try (InputStream in = Files.newInputStream(doc)) {
                    d = f.newDocumentBuilder().parse(in);
                }
                long t1 = System.nanoTime();
                sink += HeavyServlet.traverse(d).nodes();
                long t2 = System.nanoTime();
                sink += HeavyServlet.traverse(d).nodes();
                long t3 = System.nanoTime();
                parse += t1 - t0;
                first += t2 - t1;
                second += t3 - t2;
            }
            System.out.printf("round %d (%d requests): parse %.1f ms, first traversal %.1f ms, second traversal %.1f ms%n",
                    round, n, parse / n / 1e6, first / n / 1e6, second / n / 1e6);
        }
        System.out.println(sink == 42 ? "" : "done");
    }
}
