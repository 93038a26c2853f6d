package io.github.scheduledeventsbridge.testing;

import java.util.Arrays;
import java.util.stream.Collectors;

/** IMDS documents for tests, in IMDS's own shape. */
public final class Docs {

    /** The NotBefore of the seed document, for events whose time does not matter. */
    public static final String NOT_BEFORE = "Mon, 11 Apr 2022 22:26:58 GMT";
    /** Two event ids for tests that need one or two events and nothing more. */
    public static final String A = "AAAAAAAA-0000-0000-0000-00000000000A";
    public static final String B = "BBBBBBBB-0000-0000-0000-00000000000B";

    private Docs() {
    }

    /** A Scheduled Reboot of vm-a. */
    public static String scheduled(String id) {
        return scheduled(id, "Reboot", NOT_BEFORE, "vm-a");
    }

    public static String document(long incarnation, String... events) {
        return "{\"DocumentIncarnation\":" + incarnation + ",\"Events\":[" + String.join(",", events) + "]}";
    }

    public static String scheduled(String id, String type, String notBefore, String... resources) {
        return event(id, "Scheduled", type, notBefore, resources);
    }

    public static String started(String id, String type, String... resources) {
        return event(id, "Started", type, "", resources);
    }

    public static String event(String id, String status, String type, String notBefore, String... resources) {
        String names = Arrays.stream(resources).map(r -> "\"" + r + "\"").collect(Collectors.joining(","));
        return "{\"EventId\":\"" + id + "\",\"EventStatus\":\"" + status + "\",\"EventType\":\"" + type
                + "\",\"ResourceType\":\"VirtualMachine\",\"Resources\":[" + names + "],\"NotBefore\":\""
                + notBefore + "\",\"Description\":\"test event\",\"EventSource\":\"Platform\","
                + "\"DurationInSeconds\":5}";
    }
}
