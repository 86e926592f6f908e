package io.fairslice.middleware.schedule;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the OS says of a thread where Java cannot tell: a thread in a socket read (a JDBC driver's), a socket write to
 * a slow client or a file read is RUNNABLE to Java, like one that computes, but asleep to the OS. Linux only, through
 * {@code /proc}: the thread learns its own id once ({@code /proc/thread-self}), and another thread later reads its
 * state ({@code /proc/self/task/<id>/stat}). Elsewhere, and for virtual threads (whose OS thread is whichever carrier
 * mounts them), the id is -1 and the answer "not known to sleep".
 */
final class OsThreads {

    private static final Path THREAD_SELF = Path.of("/proc/thread-self");
    private static final boolean AVAILABLE = Files.isReadable(THREAD_SELF.resolve("stat"));
    /** Thread.isVirtual() where there is one (Java 21+), else null: every thread is a platform thread. */
    private static final MethodHandle IS_VIRTUAL = isVirtual();
    /** The calling platform thread's OS id, read once per thread: Tomcat's workers are pooled. */
    private static final ThreadLocal<Integer> ID = new ThreadLocal<>();

    private OsThreads() {}

    /** The calling thread's OS id (Linux's thread id), or -1 where its OS state cannot be read. */
    static int currentId() {
        if (!AVAILABLE || isVirtual(Thread.currentThread())) {
            return -1;
        }
        Integer id = ID.get();
        if (id == null) {
            id = readOwnId();
            ID.set(id);
        }
        return id;
    }

    /**
     * Whether the OS has the thread of this process with that id asleep ({@code S}: waiting in a call, as in a socket
     * read) or in an uninterruptible wait ({@code D}: disk); false when it runs or waits for a CPU ({@code R}), and
     * when it is not known (id -1, the thread gone, no {@code /proc}). Reads one small file.
     */
    static boolean asleep(int id) {
        if (id < 0) {
            return false;
        }
        byte[] stat;
        try {
            stat = Files.readAllBytes(Path.of("/proc/self/task/" + id + "/stat"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
        char state = stateOf(stat);
        return state == 'S' || state == 'D';
    }

    /**
     * The state field of a {@code /proc/<pid>/task/<id>/stat} line: the character two after the last ')', which
     * closes the thread's name (a name may hold spaces and parentheses itself); '?' if the line has none.
     */
    static char stateOf(byte[] stat) {
        for (int i = stat.length - 1; i >= 0; i--) {
            if (stat[i] == ')') {
                return i + 2 < stat.length ? (char) stat[i + 2] : '?';
            }
        }
        return '?';
    }

    private static int readOwnId() {
        try {
            // "<pid>/task/<tid>"
            String link = Files.readSymbolicLink(THREAD_SELF).toString();
            return Integer.parseInt(link.substring(link.lastIndexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Whether {@code thread} is a virtual thread (false before Java 21). */
    static boolean isVirtual(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable e) {
            return true; // cannot tell: not one to ask the OS about
        }
    }

    private static MethodHandle isVirtual() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
