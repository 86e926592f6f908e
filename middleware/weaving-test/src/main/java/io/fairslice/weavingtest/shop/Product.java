package io.fairslice.weavingtest.shop;

import java.util.Comparator;
import java.util.Objects;

/**
 * A catalog entry with the methods that collections, sorts and serialisers call at high rates (a JavaBean's getters
 * and setters, {@code hashCode}, {@code equals}, {@code compareTo}, a comparator's {@code compare}): woven, none of
 * them is a yield point; {@link #describe()} is.
 */
public final class Product implements Comparable<Product> {

    public static final Comparator<Product> BY_NAME_LENGTH = new ByNameLength();

    private String name;
    private boolean active = true;

    public Product(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public boolean isActive() {
        return active;
    }

    public void setActive(boolean active) {
        this.active = active;
    }

    /** An ordinary method: a yield point at its start. */
    public String describe() {
        return active ? name : name + " (inactive)";
    }

    @Override
    public int compareTo(Product other) {
        return name.compareTo(other.name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Product p && p.name.equals(name);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(name);
    }

    private static final class ByNameLength implements Comparator<Product> {
        @Override
        public int compare(Product a, Product b) {
            return Integer.compare(a.name.length(), b.name.length());
        }
    }
}
