package io.fairslice.experiments.app;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The second light page of the study's "two light pages, one heavy page" run: of a cost similar to /light but
 * different code, it counts the primes below a limit by trial division.
 */
public class Light2Servlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final int limit;

    public Light2Servlet(int limit) {
        this.limit = limit;
    }

    /** The number of primes below {@code limit}, by trial division (deliberately not a sieve). */
    public static int countPrimesBelow(int limit) {
        int count = 0;
        for (int candidate = 2; candidate < limit; candidate++) {
            if (isPrime(candidate)) {
                count++;
            }
        }
        return count;
    }

    private static boolean isPrime(int candidate) {
        if (candidate % 2 == 0) {
            return candidate == 2;
        }
        for (int divisor = 3; divisor * divisor <= candidate; divisor += 2) {
            if (candidate % divisor == 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        int count = countPrimesBelow(limit);
        Pages.html(response, "light2",
                "<p>primes below " + limit + " = <span id=\"value\">" + count + "</span></p>");
    }
}
