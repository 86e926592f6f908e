package io.fairslice.weavingtest;

import static io.fairslice.weavingtest.WovenSampleApplicationTest.weavingArtefacts;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.Fairslice;
import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.weaving.WeavingScope;
import io.fairslice.middleware.weaving.WovenClasses;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence under a scope that takes it in: this JVM's weaver also reads src/test/weaving/aop-broad-scope.xml, which
 * includes io.fairslice..*, Tomcat's packages, Jasper, Micrometer and the servlet API (pom.xml, execution
 * broad-scope).
 * WovenSampleApplicationTest's scope never reaches them, so only here would a broken fence (a missing exclude in the
 * jar's aop.xml together with a missing entry of the aspect's fenced() pointcut) show.
 */
class BroadScopeFenceTest {

    @Test
    void shouldKeepFencedCodeUnwovenUnderAScopeThatTakesItIn(@TempDir Path base) throws Exception {
        assertThat(System.getProperty(WeavingScope.CONFIGURATION_PROPERTY)).as("this run's weaver configuration")
                .contains("aop-broad-scope.xml");
        assertThat(weavingArtefacts(EmbeddedTomcats.class)).as("the scope reaches beyond the sample shop")
                .isNotEmpty();

        EmbeddedTomcats.host(base);
        new SimpleMeterRegistry().counter("c").increment();
        Fairslice.yieldPoint();
        List<Class<?>> fenced = List.of(org.apache.catalina.core.StandardContext.class,
                org.apache.catalina.startup.Tomcat.class, org.apache.coyote.Request.class,
                org.apache.tomcat.util.buf.MessageBytes.class, org.apache.juli.logging.LogFactory.class,
                org.apache.naming.NamingContext.class, SimpleMeterRegistry.class,
                HttpServlet.class, Fairslice.class, FairsliceFilter.class, WovenClasses.class,
                // Jasper compiles JSPs inside synchronized blocks: a yield point there would park its lock's holder
                org.apache.jasper.servlet.JspServlet.class, org.apache.jasper.compiler.Compiler.class,
                org.apache.el.ExpressionFactoryImpl.class, org.eclipse.jdt.internal.compiler.Compiler.class);
        for (Class<?> type : fenced) {
            assertThat(weavingArtefacts(type)).as("members the weaver added to %s", type.getName()).isEmpty();
        }
        assertThat(WovenClasses.sample()).as("woven classes initialised").isNotEmpty()
                .noneMatch(name -> name.matches(
                        "(org\\.apache|org\\.eclipse|io\\.micrometer|jakarta|io\\.fairslice\\.middleware)\\..*"));
    }
}
