package io.fairslice.experiments.app;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The study's light page: the n-th Fibonacci number by naive recursion (n = 25: about 0.4 ms of CPU). */
public class LightServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final int n;

    public LightServlet(int n) {
        this.n = n;
    }

    /** Naive on purpose: the page's cost is the recursion, about fib(n) calls. */
    public static int fibonacci(int n) {
        return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        int value = fibonacci(n);
        Pages.html(response, "light", "<p>fib(" + n + ") = <span id=\"value\">" + value + "</span></p>");
    }
}
