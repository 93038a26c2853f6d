package io.github.scheduledeventsbridge.delivery;

import java.util.Map;

/** The spool as Hawtio's JMX tree shows it: undelivered messages per sink and in all. */
public interface SpoolMXBean {

    Map<String, Long> getDepthBySink();

    long getTotalDepth();
}
