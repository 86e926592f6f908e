package io.fairslice.weavingtest.shop;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A session attribute as applications write them: Serializable without an explicit serialVersionUID, so its stream
 * identity is the UID the JVM computes from the class's members, which weaving must not change.
 */
public class Basket implements Serializable {

    private final List<String> skus = new ArrayList<>();

    public void add(String sku) {
        skus.add(sku);
    }

    public int size() {
        return skus.size();
    }
}
