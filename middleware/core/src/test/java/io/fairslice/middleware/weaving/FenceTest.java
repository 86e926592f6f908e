package io.fairslice.middleware.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.aspectj.lang.annotation.Pointcut;
import org.junit.jupiter.api.Test;

/** The packages that are never woven are listed three times; the lists must agree. */
class FenceTest {

    @Test
    void shouldFenceTheSamePackagesInThePointcutTheCheckAndTheJarsAopXml() throws Exception {
        String pointcut = YieldPointAspect.class.getDeclaredMethod("fenced").getAnnotation(Pointcut.class).value();
        String aopXml;
        try (InputStream in = YieldPointAspect.class.getResourceAsStream("/META-INF/aop.xml")) {
            aopXml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String fenced : WeavingScope.FENCED) {
            assertThat(pointcut).as("fenced() pointcut").contains("within(" + fenced + "..*)");
            if (!fenced.equals("io.fairslice.middleware")) { // the aspects themselves must be woven to be aspects
                assertThat(aopXml).as("META-INF/aop.xml").contains("<exclude within=\"" + fenced + "..*\"/>");
            }
        }
    }
}
