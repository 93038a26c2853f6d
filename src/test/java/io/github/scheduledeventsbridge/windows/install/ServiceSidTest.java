package io.github.scheduledeventsbridge.windows.install;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Service SIDs as Windows derives them, against SIDs Windows documents. */
class ServiceSidTest {

    @Test
    void wellKnownServicesHaveTheirDocumentedSids() {
        // NT SERVICE\TrustedInstaller owns C:\Windows and C:\Program Files.
        assertThat(ServiceSid.of("TrustedInstaller"))
                .isEqualTo("S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464")
                .isEqualTo(SecurityDescriptor.TRUSTED_INSTALLER);
        // NT SERVICE\MSSQLSERVER, SQL Server's default instance.
        assertThat(ServiceSid.of("MSSQLSERVER"))
                .isEqualTo("S-1-5-80-3880718306-3832830129-1677859214-2598158968-1052248003");
    }

    @Test
    void theNameIsUpperCasedFirstAsWindowsDoes() {
        assertThat(ServiceSid.of("trustedinstaller")).isEqualTo(ServiceSid.of("TRUSTEDINSTALLER"))
                .isEqualTo(SecurityDescriptor.TRUSTED_INSTALLER);
        assertThat(ServiceSid.of("scheduled-events-bridge")).startsWith("S-1-5-80-")
                .isNotEqualTo(ServiceSid.of("scheduled-events-bridge2"));
    }
}
