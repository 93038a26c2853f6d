package io.github.scheduledeventsbridge.eventlog;

/**
 * What the agent writes about itself to the Application log on Windows ({@link AgentLifeLog}), whatever
 * {@code bridge.eventlog.enabled} says: where Windows administrators and their monitoring look first. Like the Event
 * Log sink's, these ids are an interface (docs/windows.md): never renumber one.
 */
public enum LifeEvent {
    STARTED(2001, EntryType.INFORMATION),
    STOPPED(2002, EntryType.INFORMATION),
    /** Start-up refused a setting: the same line the agent prints; the service stops. */
    CONFIGURATION_REFUSED(2003, EntryType.ERROR),
    /** state.json or the spool cannot be written (the first failure of a run of them). */
    STORAGE_FAILING(2011, EntryType.ERROR),
    STORAGE_RECOVERED(2012, EntryType.INFORMATION),
    /** A sink's deliveries fail (its first failed attempt since it last delivered). */
    SINK_FAILING(2021, EntryType.WARNING),
    SINK_RECOVERED(2022, EntryType.INFORMATION),
    /** This VM's name is not known yet, and a decision about "this VM" needs it. */
    IDENTITY_UNKNOWN(2031, EntryType.WARNING),
    /** A newer Java is installed than the private runtime the service runs on: run install.ps1 again. */
    JAVA_OUTDATED(2041, EntryType.WARNING);

    private final int eventId;
    private final EntryType type;

    LifeEvent(int eventId, EntryType type) {
        this.eventId = eventId;
        this.type = type;
    }

    public int eventId() {
        return eventId;
    }

    public EntryType type() {
        return type;
    }
}
