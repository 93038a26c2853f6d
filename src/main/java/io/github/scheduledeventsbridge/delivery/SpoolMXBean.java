package io.github.scheduledeventsbridge.delivery;

import java.util.Map;

/** The spool as Hawtio's JMX tree shows it: undelivered messages per sink and in all. */
public interface SpoolMXBean {

    /** Its name in JMX (docs/operations.md; Hawtio's read-only allow-list names it too). */
    String OBJECT_NAME = "io.github.scheduledeventsbridge:type=Spool";

    Map<String, Long> getDepthBySink();

    long getTotalDepth();
}
