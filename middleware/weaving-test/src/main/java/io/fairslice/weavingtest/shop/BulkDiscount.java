package io.fairslice.weavingtest.shop;

/** Ten percent off lines of at least {@code threshold} units. */
public final class BulkDiscount implements Discount {

    private final int threshold;

    public BulkDiscount(int threshold) {
        this.threshold = threshold;
    }

    @Override
    public long apply(Item item, long cents) {
        return item.quantity() >= threshold ? cents - cents / 10 : cents;
    }
}
