package io.fairslice.spring.shop;

/** The application's own code, inside the weaving scope (src/test/resources/META-INF/aop.xml). */
public final class Reports {

    private Reports() {
    }

    /** A report of {@code rows} rows, each a method call: a yield point each once woven. */
    public static long total(int rows) {
        long total = 0;
        for (int i = 0; i < rows; i++) {
            total += row(i);
        }
        return total;
    }

    private static long row(int i) {
        return (long) i * i % 7;
    }
}
