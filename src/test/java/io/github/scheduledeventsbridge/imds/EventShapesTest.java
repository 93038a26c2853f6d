package io.github.scheduledeventsbridge.imds;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EventShapesTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static java.util.List<String> problems(String event) throws Exception {
        return EventShapes.problems(MAPPER.readTree(event));
    }

    @Test
    void aWellFormedEventHasNone() throws Exception {
        assertThat(problems("{\"EventId\":\"x\",\"EventStatus\":\"Scheduled\",\"EventType\":\"Freeze\",\"Resources\":[\"vm\"],"
                + "\"NotBefore\":\"Mon, 11 Apr 2022 22:26:58 GMT\",\"DurationInSeconds\":5,\"Description\":\"d\"}")).isEmpty();
        assertThat(problems("{\"EventId\":\"x\",\"EventStatus\":\"Started\",\"NotBefore\":\"\",\"DurationInSeconds\":null}")).isEmpty();
    }

    @Test
    void everyOddFieldIsNamedWithWhatTheAgentMakesOfIt() throws Exception {
        assertThat(problems("{\"EventId\":\"x\",\"EventStatus\":\"Completed\",\"EventType\":\"Hibernate\",\"Resources\":{\"a\":1},"
                + "\"NotBefore\":\"soon\",\"DurationInSeconds\":\"5\",\"Description\":[1]}")).containsExactly(
                "Resources is an object, not an array: taken as no resources",
                "EventStatus 'Completed' is neither Scheduled nor Started: no transition comes from it",
                "EventType 'Hibernate' is none of Freeze, Preempt, Reboot, Redeploy, Terminate: passed on as sent",
                "Description is an array, not a string: taken as ''",
                "NotBefore 'soon' is not a date: taken as none",
                "DurationInSeconds is a string, not a whole number: taken as absent");
        assertThat(problems("{\"EventId\":\"x\",\"EventStatus\":\"Scheduled\",\"Resources\":[\"vm\",7],\"DurationInSeconds\":5.5}"))
                .containsExactly("Resources holds a number: taken as its text '7'",
                        "DurationInSeconds 5.5 is not a whole number: taken as 5");
    }
}
