package io.fairslice.weavingtest.shop;

/** A price rule; an interface so that the tests see yield points in implementations reached by dynamic dispatch. */
public interface Discount {

    long apply(Item item, long cents);
}
