package io.fairslice.weavingtest.shop;

/** One line of a basket. */
public record Item(String sku, long unitCents, int quantity) {

    public Item {
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity must be >= 1, got " + quantity + " for " + sku);
        }
    }
}
