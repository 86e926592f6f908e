/**
 * Windows (x64): every thread's CPU time, context switches, state and wait reason from
 * {@code NtQuerySystemInformation(SystemProcessInformation)}, the calling thread's times from {@code GetThreadTimes},
 * the quantum from {@code NtQueryTimerResolution} and {@code Win32PrioritySeparation}.
 * Structure layouts are tested on every platform; the probe self-checks on Windows and turns itself off with one
 * warning when they disagree with the OS.
 */
package io.fairslice.probe.windows;
