package io.fairslice.experiments.app;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Registers the study's pages when the web application starts: {@code /light}, {@code /light2}, {@code /heavy},
 * and {@code /} (an index). Declared in the WAR's web.xml; the embedded server adds it as a listener too, so both
 * run exactly this code. Generates the heavy page's document at start in the application's private temporary folder,
 * or once in the folder {@code study.heavy.dir} names.
 */
public class StudyApplication implements ServletContextListener {

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        StudySettings settings = StudySettings.from(context);
        Path dir = settings.documentDir() != null ? settings.documentDir() : privateFolder(context);
        Path document;
        try {
            document = CatalogueGenerator.ensure(dir, settings.seed(), settings.documentBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot generate the heavy page's document in " + dir
                    + " (set study.heavy.dir to a writable folder)", e);
        }
        context.log("fairslice study: /light fib(" + settings.fibonacciN() + "), /light2 primes below "
                + settings.primeLimit() + ", /heavy parses " + document);
        context.addServlet("light", new LightServlet(settings.fibonacciN())).addMapping("/light");
        context.addServlet("light2", new Light2Servlet(settings.primeLimit())).addMapping("/light2");
        context.addServlet("heavy", new HeavyServlet(document)).addMapping("/heavy");
        context.addServlet("index", new IndexServlet(settings.fibonacciN(), settings.primeLimit())).addMapping("");
    }

    /**
     * The folder the container keeps for this application alone (Servlet spec: {@code jakarta.servlet.context.tempdir};
     * Tomcat's work folder, which for the embedded study server lies in its own private temporary folder, deleted
     * when it stops). The document is generated there at every start, and nobody else can put one in its place.
     */
    private static Path privateFolder(ServletContext context) {
        if (context.getAttribute(ServletContext.TEMPDIR) instanceof File dir) {
            return dir.toPath();
        }
        throw new IllegalStateException("the container gives the study application no private temporary folder ("
                + ServletContext.TEMPDIR + "): set study.heavy.dir to a folder only this user can write");
    }
}
