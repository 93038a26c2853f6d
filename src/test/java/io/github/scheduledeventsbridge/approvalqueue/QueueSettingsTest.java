package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.config.BadConfigurationException;
import io.github.scheduledeventsbridge.config.SettingsReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The queue's settings row by row: {vmName} as a queue name, what is refused at start. */
class QueueSettingsTest {

    private static final String SECRET = "approval-secret-for-tests-0123456789abcdef";

    @ParameterizedTest
    @CsvSource({
            "Web_VM_03, approve-web-vm-03",
            "vm1, approve-vm1",
            "MY.VM, approve-my-vm",
    })
    void theVmNameBecomesAQueueName(String vmName, String queue) {
        QueueSettings settings = read(Map.of("bridge.approval.queue.url", "https://a.queue.core.windows.net/approve-{vmName}"));
        assertThat(settings.queueUrl(vmName).toString()).isEqualTo("https://a.queue.core.windows.net/" + queue);
    }

    @Test
    void aNameOutsideThreeTo63CharactersIsRefusedWithOneLine() {
        QueueSettings settings = read(Map.of("bridge.approval.queue.url", "https://a.queue.core.windows.net/{vmName}"));
        assertThatThrownBy(() -> settings.queueUrl("ab")).isInstanceOf(BadConfigurationException.class)
                .hasMessageContaining("'ab' is not a valid queue name");
        assertThatThrownBy(() -> settings.queueUrl("v".repeat(64))).isInstanceOf(BadConfigurationException.class);
        assertThat(settings.queueUrl("v".repeat(63)).getPath()).hasSize(64);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "bridge.approval.queue.credential=token | is neither managed-identity nor connection-string",
            "bridge.approval.queue.credential=connection-string | is required with",
            "bridge.approval.queue.connection-string=AccountName=a;AccountKey=a2V5 | is set but bridge.approval.queue.credential is managed-identity",
            "bridge.approval.queue.url=http://example.com/q | must be https://",
            "bridge.approval.queue.url=https://a.queue.core.windows.net/q?sv=1 | without a query",
    })
    void refusedAtStart(String setting, String reason) {
        Map<String, String> values = new HashMap<>(Map.of("bridge.approval.queue.url", "https://a.queue.core.windows.net/q"));
        values.put(setting.substring(0, setting.indexOf('=')).strip(), setting.substring(setting.indexOf('=') + 1).strip());
        assertThatThrownBy(() -> read(values)).isInstanceOf(BadConfigurationException.class).hasMessageContaining(reason);
    }

    @Test
    void withoutTheApprovalSecretTheQueueIsRefused() {
        Map<String, String> values = Map.of("bridge.approval.queue.url", "https://a.queue.core.windows.net/q");
        assertThatThrownBy(() -> QueueSettings.read(new SettingsReader(values::get)))
                .isInstanceOf(BadConfigurationException.class).hasMessageContaining("needs bridge.approval.secret");
    }

    @Test
    void aConnectionStringGivesSharedKeyOrSas() {
        Map<String, String> values = new HashMap<>(Map.of("bridge.approval.queue.url", "http://127.0.0.1:1/acct/q",
                "bridge.approval.queue.credential", "connection-string"));
        values.put("bridge.approval.queue.connection-string", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5");
        assertThat(read(values).connectionStringCredential()).isInstanceOf(QueueCredential.SharedKey.class);
        values.put("bridge.approval.queue.connection-string", "QueueEndpoint=https://a;SharedAccessSignature=sv=1&sig=x");
        assertThat(read(values).connectionStringCredential().query()).isEqualTo("sv=1&sig=x");
        assertThat(read(values).toString()).doesNotContain("sig=x");
    }

    private static QueueSettings read(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(values);
        all.put("bridge.approval.secret", SECRET);
        return QueueSettings.read(new SettingsReader(all::get));
    }
}
