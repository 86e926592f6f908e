package io.fairslice.experiments.app;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * The study's heavy page: reads the XML catalogue into a DOM tree on every request and visits every node
 * (CPU and memory: about 6 bytes of garbage per byte of XML, so it also drives the garbage collector).
 */
public class HeavyServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final Path document;
    private final transient DocumentBuilderFactory factory;

    public HeavyServlet(Path document) {
        this.document = document;
        this.factory = DocumentBuilderFactory.newInstance();
        try {
            // the document is our own, but a parser that resolves external entities is a habit not to teach
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser refused to disallow DOCTYPEs", e);
        }
    }

    /**
     * What a traversal found; {@code textLength} is in UTF-16 code units ({@code String.length()}, 2 for a character
     * beyond the Basic Multilingual Plane), the cheap count the study's figures were measured with.
     */
    public record Summary(long nodes, long elements, long attributes, long textLength) {
    }

    /** Parses the document and walks the whole tree. */
    public Summary parseAndTraverse() throws IOException, SAXException {
        DocumentBuilder builder;
        try {
            // a factory is not promised to be thread-safe; creating a builder is cheap next to the parse
            synchronized (factory) {
                builder = factory.newDocumentBuilder();
            }
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
        Document dom;
        try (InputStream in = Files.newInputStream(document)) {
            dom = builder.parse(in);
        }
        return traverse(dom);
    }

    /** Visits every node iteratively (a deep document must not overflow the stack). */
    static Summary traverse(Document dom) {
        long nodes = 0;
        long elements = 0;
        long attributes = 0;
        long textLength = 0;
        Node node = dom.getDocumentElement();
        while (node != null) {
            nodes++;
            switch (node.getNodeType()) {
                case Node.ELEMENT_NODE -> {
                    elements++;
                    attributes += node.getAttributes().getLength();
                }
                case Node.TEXT_NODE, Node.CDATA_SECTION_NODE -> textLength += node.getNodeValue().length();
                default -> {
                }
            }
            if (node.getFirstChild() != null) {
                node = node.getFirstChild();
                continue;
            }
            while (node != null && node.getNextSibling() == null) {
                node = node.getParentNode();
                if (node == dom) {
                    node = null;
                }
            }
            if (node != null) {
                node = node.getNextSibling();
            }
        }
        return new Summary(nodes, elements, attributes, textLength);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        Summary summary;
        try {
            summary = parseAndTraverse();
        } catch (SAXException e) {
            throw new ServletException("the heavy page's document " + document + " is not well-formed XML", e);
        }
        Pages.html(response, "heavy", "<dl>"
                + "<dt>nodes</dt><dd id=\"nodes\">" + summary.nodes() + "</dd>"
                + "<dt>elements</dt><dd id=\"elements\">" + summary.elements() + "</dd>"
                + "<dt>attributes</dt><dd id=\"attributes\">" + summary.attributes() + "</dd>"
                + "<dt>text length</dt><dd id=\"text\">" + summary.textLength() + "</dd>"
                + "</dl>");
    }
}
