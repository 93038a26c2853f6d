package io.github.scheduledeventsbridge.eventlog;

import com.sun.jna.platform.win32.Advapi32;
import com.sun.jna.platform.win32.Advapi32Util;
import com.sun.jna.Native;
import com.sun.jna.platform.win32.Win32Exception;
import com.sun.jna.platform.win32.WinNT;
import com.sun.jna.platform.win32.WinReg;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Windows Event Log, through advapi32 (RegisterEventSource, ReportEvent) by JNA: the classic API that .NET's
 * EventLog.WriteEntry and PowerShell's Write-EventLog use. The source is registered in the Application log by the
 * installer (install.ps1, or New-EventLog) with .NET's message file, whose every message is the entry's own text;
 * an unregistered source still writes, but the Event Viewer then prefixes "The description for Event ID … cannot be
 * found", hence the warning at start. Only ever loaded on Windows.
 */
public final class WindowsEventLogWriter implements EventLogWriter {

    private static final Logger LOG = LoggerFactory.getLogger(WindowsEventLogWriter.class);
    static final String SOURCES = "SYSTEM\\CurrentControlSet\\Services\\EventLog\\Application\\";

    private final String source;
    private final WinNT.HANDLE handle;

    public WindowsEventLogWriter(String source) {
        this.source = source;
        if (!Advapi32Util.registryKeyExists(WinReg.HKEY_LOCAL_MACHINE, SOURCES + source)) {
            LOG.warn("Event Log source '{}' is not registered in the Application log: entries are written, but the "
                    + "Event Viewer shows them with a 'description cannot be found' preamble. Register it as an "
                    + "administrator: New-EventLog -LogName Application -Source '{}' (install.ps1 does)", source, source);
        }
        handle = Advapi32.INSTANCE.RegisterEventSource(null, source);
        if (handle == null) {
            throw new Win32Exception(Native.getLastError());
        }
    }

    @Override
    public void write(EventLogEntry entry) {
        boolean written = Advapi32.INSTANCE.ReportEvent(handle, entry.type().code(), 0, entry.eventId(), null, 1, 0,
                new String[] {entry.message()}, null);
        if (!written) {
            throw new Win32Exception(Native.getLastError());
        }
    }

    @Override
    public void close() {
        if (!Advapi32.INSTANCE.DeregisterEventSource(handle)) {
            LOG.debug("DeregisterEventSource of '{}' failed: {}", source, Native.getLastError());
        }
    }
}
