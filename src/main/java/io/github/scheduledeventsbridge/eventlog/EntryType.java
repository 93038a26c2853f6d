package io.github.scheduledeventsbridge.eventlog;

/** An entry's level: the Event Log's own values (winnt.h EVENTLOG_*_TYPE), as ReportEvent takes them. */
public enum EntryType {
    ERROR(0x0001), WARNING(0x0002), INFORMATION(0x0004);

    private final int code;

    EntryType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
