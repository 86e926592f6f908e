package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.weavingtest.shop.Basket;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import org.junit.jupiter.api.Test;

/**
 * Weaving adds a static initialiser (and members) to a woven class, and the JVM's default serialVersionUID counts
 * both: without {@code -XaddSerialVersionUID} in the weaver's options a woven JVM could not read what an unwoven one
 * wrote (Tomcat's SESSIONS.ser after the first restart with the agent: InvalidClassException).
 */
class SerialVersionUidTest {

    @Test
    void shouldKeepTheSerialVersionUidThatTheUnwovenClassHas() throws Exception {
        Class<?> unwoven = unwovenCopyOf(Basket.class);
        assertThat(WovenSampleApplicationTest.weavingArtefacts(unwoven)).as("the copy is not woven").isEmpty();
        assertThat(WovenSampleApplicationTest.weavingArtefacts(Basket.class)).as("Basket is woven").isNotEmpty();

        assertThat(ObjectStreamClass.lookup(Basket.class).getSerialVersionUID())
                .isEqualTo(ObjectStreamClass.lookup(unwoven).getSerialVersionUID());

        Object written = unwoven.getConstructor().newInstance();
        unwoven.getMethod("add", String.class).invoke(written, "sku-1");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(written);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(((Basket) in.readObject()).size()).as("read by the woven class").isEqualTo(1);
        }
    }

    /**
     * The class's own bytes, defined by a loader the weaver does not touch: its parent is the platform loader, so it
     * sees no aop.xml and the agent finds nothing to weave there.
     */
    private static Class<?> unwovenCopyOf(Class<?> type) throws IOException {
        byte[] classFile;
        try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class")) {
            classFile = in.readAllBytes();
        }
        ClassLoader plain = new ClassLoader("unwoven", ClassLoader.getPlatformClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (name.equals(type.getName())) {
                    return defineClass(name, classFile, 0, classFile.length);
                }
                throw new ClassNotFoundException(name);
            }
        };
        try {
            return Class.forName(type.getName(), false, plain);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
