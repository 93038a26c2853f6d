package io.github.scheduledeventsbridge.windows.install;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static io.github.scheduledeventsbridge.windows.install.RealAcls.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Get-Acl's SDDL read into owner, protection and ACEs, rights as access masks. */
class SecurityDescriptorTest {

    private static final Set<String> ADMINS = Set.of(SecurityDescriptor.SYSTEM, SecurityDescriptor.ADMINISTRATORS, TI);

    @Test
    void ownerAliasesAndRightsBecomeSidsAndMasks() {
        SecurityDescriptor programData = SecurityDescriptor.parse(PROGRAM_DATA);
        assertThat(programData.owner()).isEqualTo("S-1-5-18");
        assertThat(programData.isProtected()).isTrue();
        assertThat(programData.dacl()).extracting(SecurityDescriptor.Ace::sid).containsExactly("S-1-3-0", "S-1-5-18",
                "S-1-5-32-544", "S-1-5-32-545", "S-1-5-32-545");
        assertThat(programData.dacl().get(0).mask()).isEqualTo(0x1F01FF);
        assertThat(programData.dacl().get(0).appliesToObject()).isFalse();
        // DCLCRPCR: write data, append data, write extended attributes, write attributes (icacls: WD,AD,WEA,WA).
        assertThat(programData.dacl().get(4).mask()).isEqualTo(0x116);
        assertThat(programData.dacl().get(3).mask()).isEqualTo(0x1200A9);

        SecurityDescriptor programFiles = SecurityDescriptor.parse(PROGRAM_FILES);
        assertThat(programFiles.owner()).isEqualTo(TI);
        assertThat(programFiles.dacl()).hasSize(13);

        SecurityDescriptor user = SecurityDescriptor.parse(FOLDER_MADE_BY_USER);
        assertThat(user.owner()).isEqualTo(USER);
        assertThat(user.isProtected()).isFalse();
        assertThat(user.explicitAces()).singleElement().extracting(SecurityDescriptor.Ace::sid).isEqualTo(USER);
    }

    @Test
    void whoMayReplaceWhatAFolderHolds() {
        int replace = SecurityDescriptor.REPLACE_BELOW;
        // Users may create in C:\ProgramData and C:\, not delete, rename or re-permission.
        assertThat(SecurityDescriptor.parse(PROGRAM_DATA).othersGranted(replace, ADMINS)).isEmpty();
        assertThat(SecurityDescriptor.parse(DRIVE_ROOT).othersGranted(replace, ADMINS)).isEmpty();
        assertThat(SecurityDescriptor.parse(DRIVE_ROOT_SERVER).othersGranted(replace, ADMINS)).isEmpty();
        assertThat(SecurityDescriptor.parse(PROGRAM_FILES).othersGranted(replace, ADMINS)).isEmpty();
        // A folder an administrator made in C:\ inherits Authenticated Users' modify: they may rename it.
        assertThat(SecurityDescriptor.parse(ADMIN_FOLDER_IN_DRIVE_ROOT).othersGranted(replace, ADMINS))
                .containsExactly("S-1-5-11");
        assertThat(SecurityDescriptor.parse(USER_PROFILE).othersGranted(replace, ADMINS)).containsExactly(USER);
        assertThat(SecurityDescriptor.parse(FOLDER_MADE_BY_USER).othersGranted(replace, ADMINS))
                .containsExactly(USER + " (owner)", USER);
    }

    @Test
    void whatItCannotReadIsRefusedNotGuessed() {
        assertThatThrownBy(() -> SecurityDescriptor.parse("")).hasMessageContaining("could not be read");
        assertThatThrownBy(() -> SecurityDescriptor.parse("O:BAD:(A;;XX;;;BA)")).hasMessageContaining("unknown right");
        assertThatThrownBy(() -> SecurityDescriptor.parse("O:BAG:DUD:P(A;;FA;;;DA)"))
                .hasMessageContaining("alias that is not understood: DA");
        assertThatThrownBy(() -> SecurityDescriptor.parse("O:BAD:P(A;;FA;;;BA)junk"))
                .hasMessageContaining("not understood");
    }
}
