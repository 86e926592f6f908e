package io.fairslice.weavingtest.shop;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;

/**
 * Waiters told of new letters the two ways Java has: a monitor's notifyAll, and a lock's condition. The calls that
 * tell them (and the lock's release) are made while the monitor or the lock is held, where a yield point must not be;
 * so is a StampedLock's release, which is no Lock.
 */
public final class Mailbox {

    private final Object monitor = new Object();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition posted = lock.newCondition();
    private final StampedLock stamps = new StampedLock();
    private int letters;
    private int stamped;

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
        long stamp = stamps.writeLock();
        try {
            stamped++;
        } finally {
            stamps.unlockWrite(stamp);
        }
    }

    public int letters() {
        synchronized (monitor) {
            return letters;
        }
    }
}
