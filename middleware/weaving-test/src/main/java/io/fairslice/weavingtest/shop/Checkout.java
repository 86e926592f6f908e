package io.fairslice.weavingtest.shop;

import java.util.List;

/** Totals a basket with a loop over its lines: the shape of a CPU-heavy request handler. */
public final class Checkout {

    private final Discount discount;

    public Checkout(Discount discount) {
        this.discount = discount;
    }

    public long total(List<Item> basket) {
        long total = 0;
        for (Item item : basket) {
            total += line(item);
        }
        return total;
    }

    private long line(Item item) {
        return discount.apply(item, item.unitCents() * item.quantity());
    }
}
