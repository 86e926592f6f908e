package io.fairslice.tomcat.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The weaving scope check as the bundle jar runs it: relocation (maven-shade) rewrites string constants that start
 * with a relocated package, so the check's list of packages that are never woven must survive it. It did not:
 * every Tomcat start with {@code --weave} warned that the jar's own {@code <exclude within="io.micrometer..*"/>} and
 * {@code io.prometheus..*} "exclude nothing: a typo?".
 */
class BundleWeavingScopeIT {

    @Test
    @SuppressWarnings("unchecked")
    void shouldCheckTheBundlesOwnAopXmlWithoutWarnings(@TempDir Path dir) throws Exception {
        Path jar = bundleJar();
        // an application package for the operator's scope, as the installer writes it into conf/fairslice-aop.xml
        Path classes = Files.createDirectories(dir.resolve("classes/com/example/shop"));
        Files.write(classes.resolve("Report.class"), new byte[0]);
        Path scope = dir.resolve("fairslice-aop.xml");
        Files.writeString(scope, "<aspectj><weaver><include within=\"com.example.shop..*\"/></weaver></aspectj>");
        try (URLClassLoader loader = new URLClassLoader(
                new URL[] {jar.toUri().toURL(), dir.resolve("classes").toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> weavingScope = loader.loadClass("io.fairslice.middleware.weaving.WeavingScope");
            Method inspect = weavingScope.getMethod("inspect", ClassLoader.class, String.class);
            Object result = inspect.invoke(null, loader, "META-INF/aop.xml;" + scope.toUri());
            List<?> problems = (List<?>) weavingScope.getMethod("problems").invoke(result);
            List<?> warnings = (List<?>) weavingScope.getMethod("warnings").invoke(result);
            List<Object> includes = (List<Object>) weavingScope.getMethod("includes").invoke(result);

            assertThat(problems).as("problems").isEmpty();
            assertThat(warnings).as("warnings about the bundle's own aop.xml").isEmpty();
            assertThat(includes).as("the scope").containsExactly((Object) "com.example.shop..*");

            // and the fence holds in the bundle: an include inside the metrics libraries is refused
            Files.writeString(scope, "<aspectj><weaver><include within=\"io.micrometer..*\"/></weaver></aspectj>");
            Object fenced = inspect.invoke(null, loader, "META-INF/aop.xml;" + scope.toUri());
            assertThat((List<?>) weavingScope.getMethod("problems").invoke(fenced)).as("problems")
                    .anySatisfy(p -> assertThat(p.toString()).contains("lies inside io.micrometer"));
        }
    }

    private static Path bundleJar() throws Exception {
        Path lib = Path.of(System.getProperty("fairslice.dist", "target/dist"), "lib");
        try (Stream<Path> files = Files.list(lib)) {
            return files.filter(f -> f.getFileName().toString().matches("fairslice-tomcat-.*\\.jar"))
                    .findFirst().orElseThrow(() -> new AssertionError("no fairslice-tomcat jar in " + lib));
        }
    }
}
