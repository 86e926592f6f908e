package io.fairslice.experiments.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** An independent count of a document's elements (StAX, not DOM), to check the heavy page against. */
final class Documents {

    private Documents() {
    }

    static long countElements(Path document) throws IOException, XMLStreamException {
        long elements = 0;
        try (InputStream in = Files.newInputStream(document)) {
            XMLStreamReader reader = XMLInputFactory.newFactory().createXMLStreamReader(in);
            while (reader.hasNext()) {
                if (reader.next() == XMLStreamReader.START_ELEMENT) {
                    elements++;
                }
            }
            reader.close();
        }
        return elements;
    }
}
