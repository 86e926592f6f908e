package io.fairslice.tomcat.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an installation added to a Tomcat, kept in {@value #FILE} below {@code CATALINA_BASE}, so that a later run
 * updates exactly those things and {@code --uninstall} removes exactly them. One entry per line, tab-separated:
 *
 * <ul>
 *   <li>{@code file PATH SHA256}: a whole file written by fairslice (removed on uninstall if still unchanged);</li>
 *   <li>{@code block PATH FLAGS}: fairslice's marked block in an operator's file; flags {@code created} (fairslice
 *       created the file) and {@code no-final-newline} (the file did not end with a newline before);</li>
 *   <li>{@code backup PATH BACKUP}: the copy of PATH taken before fairslice first changed it;</li>
 *   <li>{@code dir PATH}: a directory fairslice created (removed on uninstall if empty).</li>
 * </ul>
 *
 * @param version the fairslice version that wrote the record
 * @param entries in the order they were made
 */
public record InstallRecord(String version, List<Entry> entries) {

    /** Where the record lives, relative to {@code CATALINA_BASE}. */
    public static final String FILE = "fairslice/install-record.txt";

    /** The kinds of entries. */
    public enum Kind {
        FILE, BLOCK, BACKUP, DIR
    }

    /** One thing fairslice added. {@code value}: the hash, the flags or the backup path, by kind; "" for dirs. */
    public record Entry(Kind kind, String path, String value) {
        public Entry {
            if (path.isBlank() || path.contains("\t") || value.contains("\t")) {
                throw new IllegalArgumentException("bad record entry " + kind + " '" + path + "' '" + value + "'");
            }
        }
    }

    public InstallRecord {
        entries = List.copyOf(entries);
    }

    /** The entries of one kind. */
    public List<Entry> all(Kind kind) {
        return entries.stream().filter(e -> e.kind() == kind).toList();
    }

    /** The entry of {@code kind} for {@code path}, if recorded. */
    public Optional<Entry> find(Kind kind, String path) {
        return entries.stream().filter(e -> e.kind() == kind && e.path().equals(path)).findFirst();
    }

    /** Reads the record of {@code base}, if there is one. */
    public static Optional<InstallRecord> read(TomcatBase base) {
        Path file = base.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InstallException("cannot read fairslice's install record " + file + ": " + e.getMessage());
        }
        String version = "?";
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\t", -1);
            try {
                if (parts[0].equals("version") && parts.length == 2) {
                    version = parts[1];
                } else if (parts.length == 3) {
                    entries.add(new Entry(Kind.valueOf(parts[0].toUpperCase(Locale.ROOT)), parts[1],
                            parts[2]));
                } else {
                    throw new IllegalArgumentException("expected 3 tab-separated fields");
                }
            } catch (IllegalArgumentException e) {
                throw new InstallException(file + " line " + (i + 1) + " is not a record entry ('" + line
                        + "'): the record is damaged; compare it with the files listed in it and fix it by hand");
            }
        }
        return Optional.of(new InstallRecord(version, entries));
    }

    /** Writes this record into {@code base}. */
    public void write(TomcatBase base) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append("# What `fairslice install` added to this Tomcat; `fairslice install --uninstall` removes exactly\n")
                .append("# these. Do not edit: the installer compares the files with the hashes below.\n")
                .append("version\t").append(version).append('\n');
        for (Entry e : entries) {
            out.append(e.kind().name().toLowerCase(Locale.ROOT)).append('\t').append(e.path()).append('\t')
                    .append(e.value()).append('\n');
        }
        Path file = base.resolve(FILE);
        Files.createDirectories(file.getParent());
        Installation.replace(file, out.toString().getBytes(StandardCharsets.UTF_8),
                base.resolve(Installation.SERVER_XML));
    }
}
