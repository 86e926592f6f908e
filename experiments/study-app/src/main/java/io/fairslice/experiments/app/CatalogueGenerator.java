package io.fairslice.experiments.app;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Generates the heavy page's XML document: a product catalogue of categories, sub-categories, products with
 * prices, stock per warehouse, tags and customer reviews. The same seed and size give the same bytes on every
 * machine, so every run of the study parses the same document.
 */
public final class CatalogueGenerator {

    private static final String[] WORDS = {
        "alpine", "amber", "anchor", "arc", "aurora", "basalt", "beacon", "birch", "bolt", "breeze", "bronze",
        "canyon", "cedar", "cinder", "cobalt", "comet", "coral", "crest", "delta", "drift", "ember", "falcon",
        "fern", "fjord", "flint", "forge", "frost", "garnet", "glacier", "granite", "harbor", "hazel", "horizon",
        "indigo", "iron", "jade", "juniper", "kestrel", "lagoon", "lantern", "linen", "lumen", "maple", "marble",
        "meadow", "mesa", "nimbus", "north", "oak", "onyx", "orbit", "pebble", "pine", "prairie", "quartz",
        "quill", "raven", "reef", "ridge", "river", "saffron", "sage", "sierra", "slate", "solstice", "spruce",
        "summit", "tide", "timber", "topaz", "tundra", "umber", "valley", "velvet", "willow", "zephyr"
    };
    private static final String[] KINDS = {
        "kettle", "lamp", "backpack", "jacket", "notebook", "headphones", "chair", "mug", "tent", "watch",
        "blender", "scarf", "speaker", "boots", "desk", "camera", "bicycle", "pan", "pillow", "keyboard"
    };
    private static final String[] WAREHOUSES = {"ams", "fra", "lhr", "nrt", "sfo", "gru", "syd"};
    private static final String[] CURRENCIES = {"EUR", "USD", "JPY", "GBP"};

    /** What was generated. */
    public record Catalogue(Path path, long bytes, long elements, long products) {
    }

    private CatalogueGenerator() {
    }

    /**
     * Returns the document for this seed and size in {@code directory}, generating it on first use. Concurrent
     * callers (two web applications starting at once) each write a temporary file and move it into place.
     */
    public static Path ensure(Path directory, long seed, long targetBytes) throws IOException {
        Path target = directory.resolve("catalogue-seed" + seed + "-" + targetBytes + ".xml");
        if (Files.isRegularFile(target)) {
            return target;
        }
        Files.createDirectories(directory);
        Path temporary = Files.createTempFile(directory, "catalogue-", ".tmp");
        try {
            write(temporary, seed, targetBytes);
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
        return target;
    }

    /** Writes a catalogue of at least {@code targetBytes} bytes (it stops after the product that crosses it). */
    public static Catalogue write(Path path, long seed, long targetBytes) throws IOException {
        try (CountingWriter out = new CountingWriter(Files.newBufferedWriter(path, StandardCharsets.UTF_8))) {
            Generator generator = new Generator(new SplittableRandom(seed), out, targetBytes);
            generator.catalogue();
            return new Catalogue(path, out.count, generator.elements, generator.products);
        }
    }

    private static final class Generator {
        private final SplittableRandom random;
        private final CountingWriter out;
        private final long targetBytes;
        long elements;
        long products;

        Generator(SplittableRandom random, CountingWriter out, long targetBytes) {
            this.random = random;
            this.out = out;
            this.targetBytes = targetBytes;
        }

        void catalogue() throws IOException {
            out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            open("catalogue", "version=\"1\" generator=\"fairslice\"");
            for (int c = 0; out.count < targetBytes; c++) {
                category("c" + c, 1);
            }
            close("catalogue");
        }

        private void category(String id, int depth) throws IOException {
            open("category", "id=\"" + id + "\" name=\"" + title(2) + "\"");
            leaf("description", sentence(8 + random.nextInt(12)));
            if (depth < 3) {
                int subcategories = 1 + random.nextInt(3);
                for (int s = 0; s < subcategories && out.count < targetBytes; s++) {
                    category(id + "." + s, depth + 1);
                }
            }
            int count = 2 + random.nextInt(6);
            for (int p = 0; p < count && out.count < targetBytes; p++) {
                product(id + "-" + p);
            }
            close("category");
        }

        private void product(String sku) throws IOException {
            products++;
            open("product", "sku=\"" + sku + "\" available=\"" + (random.nextInt(10) > 0) + "\"");
            leaf("name", title(2) + " " + KINDS[random.nextInt(KINDS.length)]);
            leaf("description", sentence(15 + random.nextInt(40)));
            String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
            out.write(String.format(Locale.ROOT, "<price currency=\"%s\">%d.%02d</price>",
                    currency, 1 + random.nextInt(900), random.nextInt(100)));
            elements++;
            open("stock", null);
            int warehouses = 1 + random.nextInt(4);
            for (int w = 0; w < warehouses; w++) {
                out.write("<warehouse code=\"" + WAREHOUSES[random.nextInt(WAREHOUSES.length)] + "\">"
                        + random.nextInt(500) + "</warehouse>");
                elements++;
            }
            close("stock");
            open("tags", null);
            int tags = random.nextInt(5);
            for (int t = 0; t < tags; t++) {
                leaf("tag", WORDS[random.nextInt(WORDS.length)]);
            }
            close("tags");
            open("reviews", null);
            int reviews = random.nextInt(6);
            for (int r = 0; r < reviews; r++) {
                open("review", "rating=\"" + (1 + random.nextInt(5)) + "\" verified=\"" + random.nextBoolean() + "\"");
                leaf("author", title(1).toLowerCase(Locale.ROOT) + random.nextInt(1000));
                leaf("text", sentence(6 + random.nextInt(30)));
                close("review");
            }
            close("reviews");
            close("product");
        }

        private void open(String name, String attributes) throws IOException {
            elements++;
            out.write(attributes == null ? "<" + name + ">" : "<" + name + " " + attributes + ">");
        }

        private void close(String name) throws IOException {
            out.write("</" + name + ">\n");
        }

        private void leaf(String name, String text) throws IOException {
            elements++;
            out.write("<" + name + ">" + text + "</" + name + ">");
        }

        private String title(int words) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < words; i++) {
                String word = WORDS[random.nextInt(WORDS.length)];
                if (i > 0) {
                    sb.append(' ');
                }
                sb.append(Character.toUpperCase(word.charAt(0))).append(word, 1, word.length());
            }
            return sb.toString();
        }

        private String sentence(int words) {
            StringBuilder sb = new StringBuilder(title(1));
            for (int i = 1; i < words; i++) {
                sb.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
            }
            return sb.append('.').toString();
        }
    }

    /** Counts characters written; the document is ASCII, so characters are bytes. */
    private static final class CountingWriter extends Writer {
        private final BufferedWriter delegate;
        long count;

        CountingWriter(BufferedWriter delegate) {
            this.delegate = delegate;
        }

        @Override
        public void write(char[] buffer, int offset, int length) throws IOException {
            delegate.write(buffer, offset, length);
            count += length;
        }

        @Override
        public void write(String text) throws IOException {
            delegate.write(text);
            count += text.length();
        }

        @Override
        public void flush() throws IOException {
            delegate.flush();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
