package io.github.scheduledeventsbridge.imds;

/**
 * The live-migration example of Azure's Scheduled Events documentation: the four documents IMDS serves
 * while a VM is frozen for a memory-preserving live migration. Shared by the parser, detector and journal tests.
 */
public final class LiveMigrationSeed {

    public static final String EVENT_ID = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    public static final String DESCRIPTION =
            "Virtual machine is being paused because of a memory-preserving Live Migration operation.";

    public static final String INCARNATION_1 = """
            {
                "DocumentIncarnation": 1,
                "Events": []
            }""";

    public static final String INCARNATION_2 = """
            {
                "DocumentIncarnation": 2,
                "Events": [
                    {
                        "EventId": "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
                        "EventStatus": "Scheduled",
                        "EventType": "Freeze",
                        "ResourceType": "VirtualMachine",
                        "Resources": [
                            "WestNO_0",
                            "WestNO_1"
                        ],
                        "NotBefore": "Mon, 11 Apr 2022 22:26:58 GMT",
                        "Description": "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
                        "EventSource": "Platform",
                        "DurationInSeconds": 5
                    }
                ]
            }""";

    public static final String INCARNATION_3 = """
            {
                "DocumentIncarnation": 3,
                "Events": [
                    {
                        "EventId": "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
                        "EventStatus": "Started",
                        "EventType": "Freeze",
                        "ResourceType": "VirtualMachine",
                        "Resources": [
                            "WestNO_0",
                            "WestNO_1"
                        ],
                        "NotBefore": "",
                        "Description": "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
                        "EventSource": "Platform",
                        "DurationInSeconds": 5
                    }
                ]
            }""";

    public static final String INCARNATION_4 = """
            {
                "DocumentIncarnation": 4,
                "Events": []
            }""";

    private LiveMigrationSeed() {
    }

    public static ImdsDocument parse(String json) {
        return new ImdsDocumentParser().parse(json);
    }
}
