package io.fairslice.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProcTextTest {

    private static final String SCHED = String.join("\n",
            "java (15208, #threads: 21)",
            "-------------------------------------------------------------------",
            "se.exec_start                                :        445973.141915",
            "se.sum_exec_runtime                          :           171.659434",
            "nr_switches                                  :                  659",
            "nr_voluntary_switches                        :                   50",
            "nr_involuntary_switches                      :                  609",
            "se.load.weight                               :              1048576",
            "policy                                       :                    0",
            "prio                                         :                  130",
            "se.slice                                     :              1400000",
            "clock-delta                                  :                   -39",
            "");

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void shouldReadSchedstatFieldsByPosition() {
        ByteBuffer b = bytes("951019 83706 2\n");

        assertThat(ProcText.field(b, 15, 0)).isEqualTo(951019);
        assertThat(ProcText.field(b, 15, 1)).isEqualTo(83706);
        assertThat(ProcText.field(b, 15, 2)).isEqualTo(2);
        assertThat(ProcText.field(b, 15, 3)).isEqualTo(ProcText.MISSING);
    }

    @Test
    void shouldReadKeyedValuesWithoutMatchingLongerKeys() {
        ByteBuffer b = bytes(SCHED);
        int n = SCHED.length();

        assertThat(ProcText.keyedBelowHeader(b, n, key("nr_voluntary_switches"))).isEqualTo(50);
        assertThat(ProcText.keyedBelowHeader(b, n, key("nr_involuntary_switches"))).isEqualTo(609);
        assertThat(ProcText.keyedBelowHeader(b, n, key("prio"))).isEqualTo(130);
        assertThat(ProcText.keyedBelowHeader(b, n, key("policy"))).isEqualTo(0);
        assertThat(ProcText.keyedBelowHeader(b, n, key("se.slice"))).isEqualTo(1_400_000);
        assertThat(ProcText.keyedBelowHeader(b, n, key("clock-delta"))).isEqualTo(-39);
        assertThat(ProcText.keyedBelowHeader(b, n, key("nr_switch"))).isEqualTo(ProcText.MISSING);
        assertThat(ProcText.keyedBelowHeader(b, n, key("se.load"))).isEqualTo(ProcText.MISSING);
    }

    /** The header line is the thread's name, which can look like a key: "prio 1" read as priority 1 (nice -119). */
    @Test
    void shouldNotReadAKeyFromTheThreadsNameInTheHeader() {
        for (String name : new String[] {"prio 1", "policy 2", "prio", "prio: 5"}) {
            String sched = SCHED.replace("java (15208", name + " (15208");
            ByteBuffer b = bytes(sched);
            assertThat(ProcText.keyedBelowHeader(b, sched.length(), key("prio"))).as(name).isEqualTo(130);
            assertThat(ProcText.keyedBelowHeader(b, sched.length(), key("policy"))).as(name).isEqualTo(0);
        }
    }

    /** A cgroup's cpu.stat has no header: v1's first line is nr_periods, which read as missing. */
    @Test
    void shouldReadEveryLineOfAFileWithoutHeader() {
        String v1 = "nr_periods 4\nnr_throttled 1\nthrottled_time 2500000\n";
        String v2 = "usage_usec 93\nuser_usec 60\nsystem_usec 33\nnr_periods 7\nnr_throttled 2\nthrottled_usec 900\n";

        assertThat(ProcText.keyed(bytes(v1), v1.length(), key("nr_periods"))).isEqualTo(4);
        assertThat(ProcText.keyed(bytes(v1), v1.length(), key("throttled_time"))).isEqualTo(2_500_000);
        assertThat(ProcText.keyed(bytes(v2), v2.length(), key("nr_periods"))).isEqualTo(7);
        assertThat(ProcText.keyed(bytes(v2), v2.length(), key("throttled_usec"))).isEqualTo(900);
        assertThat(ProcText.keyed(bytes(v2), v2.length(), key("usage_usec"))).isEqualTo(93);
    }

    @Test
    void shouldReadPressureAndLoadDecimals() {
        String psi = "some avg10=7.24 avg60=2.78 avg300=2.32 total=15069481\n"
                + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        ByteBuffer b = bytes(psi);

        assertThat(ProcText.namedOnLine(b, psi.length(), key("some "), key("avg10="), 100)).isEqualTo(724);
        assertThat(ProcText.namedOnLine(b, psi.length(), key("some "), key("total="), 1)).isEqualTo(15069481);
        assertThat(ProcText.namedOnLine(b, psi.length(), key("full "), key("total="), 1)).isEqualTo(0);
        assertThat(ProcText.namedOnLine(b, psi.length(), key("some "), key("avg30="), 1)).isEqualTo(ProcText.MISSING);
        assertThat(ProcText.parseDecimal(bytes("0.43 0.28 0.13 3/91 5525\n"), 0, 25, 100)).isEqualTo(43);
        assertThat(ProcText.field(bytes("0.43 0.28 0.13 3/91 5525\n"), 25, 3)).as("runnable, before the slash")
                .isEqualTo(3);
    }

    @Test
    void shouldTreatTruncatedOrEmptyTextAsMissing() {
        assertThat(ProcText.field(bytes(""), 0, 0)).isEqualTo(ProcText.MISSING);
        assertThat(ProcText.keyedBelowHeader(bytes("prio"), 4, key("prio"))).isEqualTo(ProcText.MISSING);
        assertThat(ProcText.field(bytes("x 1"), 3, 0)).isEqualTo(ProcText.MISSING);
    }
}
