package io.fairslice.middleware.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;

/**
 * Counting per class loader, without the weaving agent: each test uses its own {@link WovenClasses} (the static one
 * that the aspect reports to stays untouched, so the gauge tests elsewhere still see zero) and stands in for web
 * applications with throw-away class loaders that define a copy of {@link Sample}.
 */
class WovenClassesTest {

    /** The class that plays a woven class of each "application". */
    static final class Sample {
    }

    /** A web application's class loader: defines its own copy of a class from the same bytes. */
    static final class AppLoader extends ClassLoader {

        AppLoader(ClassLoader parent) {
            super(parent);
        }

        Class<?> defineCopyOf(Class<?> template) {
            String resource = template.getName().replace('.', '/') + ".class";
            try (InputStream in = template.getClassLoader().getResourceAsStream(resource)) {
                byte[] bytes = in.readAllBytes();
                return defineClass(template.getName(), bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void shouldCountEachApplicationsClassesWithThoseOfTheClassLoadersBelowIt() {
        WovenClasses woven = new WovenClasses();
        ClassLoader shared = WovenClassesTest.class.getClassLoader();
        AppLoader shop = new AppLoader(shared);
        AppLoader shopJsp = new AppLoader(shop);
        AppLoader admin = new AppLoader(shared);

        woven.add(Sample.class);
        woven.add(shop.defineCopyOf(Sample.class));
        woven.add(shopJsp.defineCopyOf(Sample.class));
        woven.add(admin.defineCopyOf(Sample.class));

        assertThat(woven.liveIn(shop)).as("the application and its JSP loader").isEqualTo(2);
        assertThat(woven.liveIn(shopJsp)).isEqualTo(1);
        assertThat(woven.liveIn(admin)).isEqualTo(1);
        assertThat(woven.liveIn(shared)).as("everything below the shared loader").isEqualTo(4);
        assertThat(woven.live()).isEqualTo(4);
        assertThat(woven.names()).hasSize(4).containsOnly(Sample.class.getName());
    }

    @Test
    void shouldCountForEachApplicationTheClassesOfTheLoadersItDelegatesToButNotThoseOfItsNeighbours() {
        WovenClasses woven = new WovenClasses();
        ClassLoader system = WovenClassesTest.class.getClassLoader();
        AppLoader shared = new AppLoader(system);
        AppLoader shop = new AppLoader(shared);
        AppLoader shopJsp = new AppLoader(shop);
        AppLoader admin = new AppLoader(shared);

        woven.add(Sample.class); // an embedded server's application classes, on the class path
        woven.add(shared.defineCopyOf(Sample.class));
        woven.add(shop.defineCopyOf(Sample.class));
        woven.add(shopJsp.defineCopyOf(Sample.class));
        woven.add(admin.defineCopyOf(Sample.class));

        assertThat(woven.liveVisibleTo(shop)).as("its own, its JSP loader's, the shared and the class path's")
                .isEqualTo(4);
        assertThat(woven.liveVisibleTo(shopJsp)).as("its own and those of every loader above it").isEqualTo(4);
        assertThat(woven.liveVisibleTo(admin)).as("not the shop's").isEqualTo(3);
        assertThat(woven.liveVisibleTo(system)).as("everything below the class path's loader").isEqualTo(5);
    }

    @Test
    void shouldStopCountingAnUndeployedApplicationOnceItsClassLoaderIsCollected() throws InterruptedException {
        WovenClasses woven = new WovenClasses();
        woven.add(Sample.class);
        WeakReference<ClassLoader> undeployed = deployAndInitialise(woven);
        assertThat(woven.live()).as("until the class loader is collected").isEqualTo(2);

        for (int i = 0; i < 50 && undeployed.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }

        assertThat(undeployed.get()).as("nothing but the count held the undeployed class loader").isNull();
        assertThat(woven.live()).isEqualTo(1);
        assertThat(woven.names()).as("names kept for logs stay").hasSize(2);
    }

    @Test
    void shouldKeepOnlyTheFirstNamesButCountEveryClass() {
        WovenClasses woven = new WovenClasses();
        AppLoader app = new AppLoader(WovenClassesTest.class.getClassLoader());
        Class<?> type = app.defineCopyOf(Sample.class);
        for (int i = 0; i < WovenClasses.NAMES_KEPT + 10; i++) {
            woven.add(type);
        }
        assertThat(woven.liveIn(app)).isEqualTo(WovenClasses.NAMES_KEPT + 10);
        assertThat(woven.names()).hasSize(WovenClasses.NAMES_KEPT);
    }

    /** An application deployed, its woven class initialised, then undeployed: only a weak reference is returned. */
    private static WeakReference<ClassLoader> deployAndInitialise(WovenClasses woven) {
        AppLoader app = new AppLoader(WovenClassesTest.class.getClassLoader());
        woven.add(app.defineCopyOf(Sample.class));
        return new WeakReference<>(app);
    }
}
