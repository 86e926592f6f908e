package io.fairslice.middleware.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdleSamplerTest {

    private static final long MS = 1_000_000L;
    private static final long TICK = 10 * MS;

    /** A process that uses {@code busy} of one processor, read through a clock of {@code granule} (ns, 1: exact). */
    private static final class Process {
        final double busy;
        final long granule;
        long wall = 5_000 * MS + 3 * MS; // not on a tick
        double machine = 0.6;

        Process(double busy, long granule) {
            this.busy = busy;
            this.granule = granule;
        }

        long cpu() {
            long used = (long) (wall * busy);
            return used / granule * granule;
        }

        /** Calls the sampler every millisecond for {@code millis}; returns how many idle samples it ended. */
        int idleAnswers(Clock.IdleSampler sampler, long millis) {
            int idle = 0;
            int before = sampler.idleSamples(1);
            for (long i = 0; i < millis; i++) {
                wall += MS;
                int inARow = sampler.idleSamples(1);
                if (inARow > before) {
                    idle++;
                }
                before = inARow;
            }
            return idle;
        }

        Clock.IdleSampler sampler() {
            return new Clock.IdleSampler(this::cpu, () -> machine, () -> wall);
        }
    }

    @Test
    void shouldNeverTakeABusyProcessForIdleThroughAClockOf10msTicks() {
        Process p = new Process(0.97, TICK);
        Clock.IdleSampler sampler = p.sampler();
        assertThat(p.idleAnswers(sampler, 10_000)).as("10 s of a process busy 97 % of the time, read in 10 ms ticks")
                .isZero();
        assertThat(sampler.periodNanos()).as("ten ticks").isEqualTo(100 * MS);
    }

    @Test
    void shouldFindAHalfIdleProcessThroughAClockOf10msTicksOncePerSample() {
        Process p = new Process(0.4, TICK);
        Clock.IdleSampler sampler = p.sampler();
        int idle = p.idleAnswers(sampler, 10_000);
        assertThat(idle).as("one answer per 100 ms sample over 10 s, the first ones learning the tick")
                .isBetween(90, 100);
    }

    @Test
    void shouldSampleEvery20msThroughAnExactClock() {
        Process p = new Process(0.4, 1);
        Clock.IdleSampler sampler = p.sampler();
        p.idleAnswers(sampler, 2_000); // learns that the clock is exact
        assertThat(sampler.periodNanos()).isEqualTo(20 * MS);
        assertThat(p.idleAnswers(sampler, 1_000)).as("one answer per 20 ms sample").isEqualTo(50);
        Process busy = new Process(0.95, 1);
        Clock.IdleSampler busySampler = busy.sampler();
        assertThat(busy.idleAnswers(busySampler, 3_000)).isZero();
    }

    @Test
    void shouldOnBusyMachinesCountOnlyAProcessUnderHalfItsProcessorsIdle() {
        Process p = new Process(0.7, 1);
        p.machine = 0.95;
        assertThat(p.idleAnswers(p.sampler(), 3_000)).as("70 % on a busy machine: others took the rest").isZero();
        Process q = new Process(0.3, 1);
        q.machine = 0.95;
        assertThat(q.idleAnswers(q.sampler(), 3_000)).isPositive();
    }

    @Test
    void shouldNotJudgeOverALongQuietSpell() {
        Process p = new Process(0.0, 1);
        Clock.IdleSampler sampler = p.sampler();
        p.wall += 60_000 * MS; // no call for a minute
        assertThat(sampler.idleSamples(1)).as("the first sample after a long spell only starts the next").isZero();
    }

    @Test
    void shouldCountIdleSamplesInARowUntilABusyOne() {
        Process p = new Process(0.4, 1);
        Clock.IdleSampler sampler = p.sampler();
        p.idleAnswers(sampler, 2_000); // learns that the clock is exact: 20 ms samples
        int before = sampler.idleSamples(1);
        p.idleAnswers(sampler, 100);
        assertThat(sampler.idleSamples(1)).as("five samples more, all idle").isEqualTo(before + 5);
        Process busy = new Process(0.95, 1);
        Clock.IdleSampler busySampler = busy.sampler();
        busy.idleAnswers(busySampler, 2_000);
        assertThat(busySampler.idleSamples(1)).isZero();
    }
}
