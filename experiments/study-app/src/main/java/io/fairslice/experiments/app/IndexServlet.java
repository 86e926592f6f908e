package io.fairslice.experiments.app;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The application's root: links to the study's pages, saying what each computes with this application's settings
 * (it said "the 25th Fibonacci number" whatever {@code study.light.fibonacci} was).
 */
public class IndexServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final int fibonacciN;
    private final int primeLimit;

    public IndexServlet(int fibonacciN, int primeLimit) {
        this.fibonacciN = fibonacciN;
        this.primeLimit = primeLimit;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String base = request.getContextPath();
        Pages.html(response, "fairslice study", "<h1>fairslice study</h1><ul>"
                + "<li><a href=\"" + base + "/light\">/light</a>: the Fibonacci number fib(" + fibonacciN
                + "), naively</li>"
                + "<li><a href=\"" + base + "/light2\">/light2</a>: the primes below " + primeLimit
                + " by trial division</li>"
                + "<li><a href=\"" + base + "/heavy\">/heavy</a>: an XML catalogue parsed into a DOM and walked</li>"
                + "</ul>");
    }
}
