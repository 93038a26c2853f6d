package io.github.scheduledeventsbridge.platform;

import com.sun.jna.Library;
import com.sun.jna.Native;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.LongSupplier;

/**
 * Windows' boot time: now minus {@code GetTickCount64}, the milliseconds since the system started (kernel32, through
 * JNA, which the jar already carries). Chosen over the start time of the System or smss process, which a virtual
 * service account may not be allowed to query, and over asking PowerShell or WMI (a process, ~1 s, per question).
 * The tick count keeps counting through sleep, so the result stays put; truncated to seconds like Linux's
 * {@code btime}. Null (boot time unknown) when kernel32 cannot be called.
 */
final class WindowsBootTime implements BootTime {

    /** The one function needed, mapped directly rather than through jna-platform's whole Kernel32. */
    interface Kernel32 extends Library {
        long GetTickCount64();
    }

    private final LongSupplier millisSinceBoot;
    private final Clock clock;

    WindowsBootTime(LongSupplier millisSinceBoot, Clock clock) {
        this.millisSinceBoot = millisSinceBoot;
        this.clock = clock;
    }

    static WindowsBootTime kernel32() {
        return new WindowsBootTime(() -> Native.load("kernel32", Kernel32.class).GetTickCount64(), Clock.systemUTC());
    }

    @Override
    public Instant get() {
        try {
            return clock.instant().minusMillis(millisSinceBoot.getAsLong()).truncatedTo(ChronoUnit.SECONDS);
        } catch (RuntimeException | LinkageError e) {
            LoggerFactory.getLogger(BootTime.class).debug("Boot time unknown: GetTickCount64 failed ({})", e.toString());
            return null;
        }
    }
}
