package io.github.scheduledeventsbridge.windows.install;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** The Event Log source, firewall rules and warnings install.ps1 sets up from the file and machine-wide variables. */
class ServiceSettingsTest {

    @Test
    void theDefaultsOpenNoPortAndRegisterTheDefaultSource() throws IOException {
        assertThat(new ServiceSettings(properties("bridge.eventlog.enabled=true\n"), Map.of()).plan())
                .containsExactly("event-source\tscheduled-events-bridge");
    }

    @Test
    void portsOpenForWhatTheFileConfigures() throws IOException {
        Properties file = properties("""
                bridge.eventlog.source = My Bridge
                bridge.approval.secret=0123456789abcdef0123456789abcdef
                bridge.approval.port=9089
                bridge.drain.port=8091
                bridge.management.host=0.0.0.0
                """);
        assertThat(new ServiceSettings(file, Map.of()).plan()).containsExactly("event-source\tMy Bridge",
                "firewall\tapproval API\t9089", "firewall\tdrain signal\t8091", "firewall\tmanagement\t8080");
    }

    @Test
    void approvalsFromAQueueAloneOpenNoApprovalPort() throws IOException {
        Properties file = properties("""
                bridge.approval.secret=0123456789abcdef0123456789abcdef
                bridge.approval.http.enabled=false
                bridge.approval.queue.url=https://fleet.queue.core.windows.net/approve-{vmName}
                """);
        assertThat(new ServiceSettings(file, Map.of()).plan()).containsExactly("event-source\tscheduled-events-bridge");
        assertThat(new ServiceSettings(file, Map.of("BRIDGE_APPROVAL_HTTP_ENABLED", "true")).plan())
                .contains("firewall\tapproval API\t8089");
    }

    @Test
    void anApprovalSecretSetMachineWideOpensItsPortAndSaysItNeedsARestartOfWindows() throws IOException {
        assertThat(new ServiceSettings(properties("bridge.management.host=127.0.0.1\n"),
                Map.of("Bridge_Approval_Secret", "0123456789abcdef0123456789abcdef")).plan())
                .containsExactly("event-source\tscheduled-events-bridge", "firewall\tapproval API\t8089",
                        "warn\tBridge_Approval_Secret is set for the whole machine: the service sees it, and any "
                                + "change of it, only after Windows restarts. Set it in bridge.properties instead, "
                                + "or restart Windows after install.ps1");
    }

    private static Properties properties(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return properties;
    }
}
