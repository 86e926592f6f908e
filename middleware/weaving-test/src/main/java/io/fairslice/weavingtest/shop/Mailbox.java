package io.fairslice.weavingtest.shop;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waiters told of new letters the two ways Java has: a monitor's notifyAll, and a lock's condition. The calls that
 * tell them (and the lock's release) are made while the monitor or the lock is held, where a yield point must not be.
 */
public final class Mailbox {

    private final Object monitor = new Object();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition posted = lock.newCondition();
    private int letters;

    /** A letter put in and every waiter told, under the monitor and under the lock. */
    public void post() {
        synchronized (monitor) {
            letters++;
            monitor.notifyAll();
        }
        lock.lock();
        try {
            posted.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public int letters() {
        synchronized (monitor) {
            return letters;
        }
    }
}
