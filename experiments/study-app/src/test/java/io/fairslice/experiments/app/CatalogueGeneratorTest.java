package io.fairslice.experiments.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogueGeneratorTest {

    @TempDir
    Path dir;

    @Test
    void shouldGenerateTheSameBytesForTheSameSeed() throws Exception {
        CatalogueGenerator.write(dir.resolve("a.xml"), 7, 200_000);
        CatalogueGenerator.write(dir.resolve("b.xml"), 7, 200_000);
        assertThat(sha256(dir.resolve("a.xml"))).isEqualTo(sha256(dir.resolve("b.xml")));
    }

    @Test
    void shouldGenerateDifferentDocumentsForDifferentSeeds() throws Exception {
        CatalogueGenerator.write(dir.resolve("a.xml"), 7, 200_000);
        CatalogueGenerator.write(dir.resolve("b.xml"), 8, 200_000);
        assertThat(sha256(dir.resolve("a.xml"))).isNotEqualTo(sha256(dir.resolve("b.xml")));
    }

    @Test
    void shouldReachTheRequestedSizeWithoutOvershootingMuch() throws Exception {
        long target = 2L * 1024 * 1024;
        CatalogueGenerator.Catalogue catalogue = CatalogueGenerator.write(dir.resolve("c.xml"), 2005, target);
        long size = Files.size(catalogue.path());
        assertThat(size).isEqualTo(catalogue.bytes()).isGreaterThanOrEqualTo(target).isLessThan(target + 8192);
    }

    @Test
    void shouldCountEveryElementItWrites() throws Exception {
        CatalogueGenerator.Catalogue catalogue = CatalogueGenerator.write(dir.resolve("d.xml"), 1, 300_000);
        assertThat(Documents.countElements(catalogue.path())).isEqualTo(catalogue.elements());
        assertThat(catalogue.products()).isGreaterThan(100);
    }

    @Test
    void shouldReuseAnExistingDocument() throws Exception {
        Path first = CatalogueGenerator.ensure(dir, 3, 50_000);
        long modified = Files.getLastModifiedTime(first).toMillis();
        Path second = CatalogueGenerator.ensure(dir, 3, 50_000);
        assertThat(second).isEqualTo(first);
        assertThat(Files.getLastModifiedTime(second).toMillis()).isEqualTo(modified);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(first);
        }
    }

    @Test
    void shouldBeANestedCatalogueNotPadding() throws Exception {
        CatalogueGenerator.Catalogue catalogue = CatalogueGenerator.write(dir.resolve("e.xml"), 5, 100_000);
        String text = Files.readString(catalogue.path());
        assertThat(text).startsWith("<?xml").contains("<catalogue").contains("<category id=\"c0.0\"")
                .contains("<product sku=").contains("<review rating=").endsWith("</catalogue>\n");
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
