package io.github.scheduledeventsbridge.windows.install;

import io.github.scheduledeventsbridge.windows.install.DataFolderPlan.Item;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static io.github.scheduledeventsbridge.windows.install.RealAcls.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The data folder's plan, row by row, from security descriptors as Windows reports them. */
class DataFolderPlanTest {

    private static final String DATA = "C:\\ProgramData\\scheduled-events-bridge";
    private static final String SUFFIX = ".untrusted-20261128-140000";
    private static final List<Item> PARENTS = List.of(new Item("C:\\ProgramData", true, false, PROGRAM_DATA),
            new Item("C:\\", true, false, DRIVE_ROOT));
    private static final String FOLDER_GRANTS = "*S-1-5-18:(OI)(CI)F\t*S-1-5-32-544:(OI)(CI)F\t*" + SERVICE
            + ":(OI)(CI)M";
    private static final String READ_GRANTS = "*S-1-5-18:F\t*S-1-5-32-544:F\t*" + SERVICE + ":RX";

    private final DataFolderPlan planner = new DataFolderPlan("scheduled-events-bridge", false, SUFFIX);

    @Test
    void aNewFolderIsCreatedPrivateWithTheDefaultsInIt() {
        assertThat(planner.plan(DATA, PARENTS, Optional.empty(), List.of())).containsExactly(
                "create-folder\tO:BAD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;" + SERVICE + ")",
                "create-directory\tlogs", "create-directory\ttmp", "create-directory\tactions",
                "copy-default\tbridge.properties", "copy-default\tjvm.options",
                "secure\tbridge.properties\t" + READ_GRANTS, "secure\tjvm.options\t" + READ_GRANTS,
                "secure\tactions\t" + FOLDER_GRANTS.replace(":(OI)(CI)M", ":(OI)(CI)RX"));
        // The SDDL it is created with is what a private folder reads back as (but for the group Windows adds).
        assertThat(planner.newFolderSddl()).isEqualTo(PRIVATE_FOLDER.replace("G:SY", ""));
    }

    @Test
    void aFolderAStandardUserMadeIsTakenOverAndWhatTheUserPutInItIsSetAside() {
        List<Item> planted = List.of(
                new Item("jvm.options", false, false, FILE_BY_USER),
                new Item("bridge.properties", false, false, FILE_BY_USER),
                new Item("spool", true, false, FILE_BY_USER),
                new Item("spool\\webhook", true, false, FILE_BY_USER),
                new Item("actions.log", false, false, FILE_BY_USER));
        List<String> plan = planner.plan(DATA, PARENTS, Optional.of(new Item(DATA, true, false, FOLDER_MADE_BY_USER)),
                planted);

        String owner = "owned by " + USER + ", not by SYSTEM, Administrators or the service";
        assertThat(plan).startsWith("take-ownership\t.", "secure\t.\t" + FOLDER_GRANTS, "remove-ace\t.\t/remove\t*" + USER,
                "set-aside\tactions.log\tactions.log" + SUFFIX + "\t" + owner,
                "set-aside\tbridge.properties\tbridge.properties" + SUFFIX + "\t" + owner,
                "set-aside\tjvm.options\tjvm.options" + SUFFIX + "\t" + owner,
                "set-aside\tspool\tspool" + SUFFIX + "\t" + owner);
        assertThat(plan).as("what is in a folder set aside goes with it").noneMatch(l -> l.contains("spool\\webhook"))
                .contains("copy-default\tbridge.properties", "copy-default\tjvm.options")
                .noneMatch(l -> l.startsWith("inherit"));
    }

    @Test
    void theUsersAceAnEarlierInstallLeftIsRemovedAndTheServicesOwnStateIsKept() {
        List<Item> state = List.of(
                new Item("bridge.properties", false, false, PRIVATE_SETTINGS),
                new Item("jvm.options", false, false, PRIVATE_SETTINGS),
                new Item("state.json", false, false, FILE_BY_SERVICE),
                new Item("spool", true, false, FILE_BY_SERVICE),
                new Item("spool\\webhook-0.json", false, false, FILE_BY_SERVICE),
                new Item("logs", true, false, FILE_BY_SERVICE),
                new Item("tmp", true, false, FILE_BY_SERVICE),
                new Item("actions", true, false, PRIVATE_SETTINGS),
                new Item("actions\\prepare.ps1", false, false, FILE_BY_ADMIN_OPENED_TO_EVERYONE));
        List<String> plan = planner.plan(DATA, PARENTS,
                Optional.of(new Item(DATA, true, false, FOLDER_AFTER_OLD_INSTALL)), state);

        // icacls: /reset (the user's explicit ACE goes), /inheritance:r, /grant:r these three only.
        assertThat(plan).containsExactly("secure\t.\t" + FOLDER_GRANTS, "remove-ace\t.\t/remove\t*" + USER,
                "inherit\tactions\\prepare.ps1",
                "secure\tbridge.properties\t" + READ_GRANTS, "secure\tjvm.options\t" + READ_GRANTS,
                "secure\tactions\t" + FOLDER_GRANTS.replace(":(OI)(CI)M", ":(OI)(CI)RX"));
    }

    @Test
    void anExplicitSwitchTakesOverWhatOthersOwnInsteadOfSettingItAside() {
        List<String> plan = new DataFolderPlan("scheduled-events-bridge", true, SUFFIX).plan(DATA, PARENTS,
                Optional.of(new Item(DATA, true, false, FOLDER_MADE_BY_USER)),
                List.of(new Item("jvm.options", false, false, FILE_BY_USER),
                        new Item("spool", true, false, FILE_BY_USER)));
        assertThat(plan).noneMatch(l -> l.startsWith("set-aside"))
                .containsSubsequence("take-ownership\tspool", "inherit\tspool")
                .containsSubsequence("take-ownership\tjvm.options", "secure\tjvm.options\t" + READ_GRANTS)
                .doesNotContain("copy-default\tjvm.options");
    }

    @Test
    void aJunctionOrSymbolicLinkAnywhereRefusesTheInstallBeforeAnythingIsChanged() {
        assertThat(planner.plan(DATA, PARENTS, Optional.of(new Item(DATA, true, true, PROGRAM_DATA)), List.of()))
                .containsExactly("refuse\t" + DATA + " is a junction or symbolic link: nothing follows one. Remove it "
                        + "(Remove-Item removes the link, not its target) and run install.ps1 again");
        List<String> plan = planner.plan(DATA, PARENTS, Optional.of(new Item(DATA, true, false, PRIVATE_FOLDER)),
                List.of(new Item("logs", true, false, FILE_BY_SERVICE),
                        new Item("spool", true, true, FILE_BY_USER)));
        assertThat(plan).singleElement().asString().startsWith("refuse\t" + DATA + "\\spool is a junction");
        assertThat(planner.plan(DATA, List.of(new Item("C:\\ProgramData", true, true, PROGRAM_DATA)),
                Optional.empty(), List.of())).singleElement().asString()
                .startsWith("refuse\t" + DATA + " is under C:\\ProgramData, a junction");
    }

    @Test
    void aFolderUnderAParentOthersMayChangeIsRefused() {
        List<String> plan = planner.plan("C:\\data\\seb", List.of(
                new Item("C:\\data", true, false, ADMIN_FOLDER_IN_DRIVE_ROOT), new Item("C:\\", true, false,
                        DRIVE_ROOT)), Optional.empty(), List.of());
        assertThat(plan).containsExactly("refuse\tC:\\data\\seb is under C:\\data, which S-1-5-11 may rename, delete "
                + "or re-permission: choose a folder whose parents only SYSTEM and Administrators can change");
        assertThat(planner.plan("C:\\Users\\me\\seb", List.of(new Item("C:\\Users\\me", true, false, USER_PROFILE)),
                Optional.empty(), List.of())).singleElement().asString().contains(USER + " may rename");
    }

    @Test
    void aDenyEntryForAdministratorsGoesWithoutItsGrant() {
        List<String> plan = planner.plan(DATA, PARENTS, Optional.of(new Item(DATA, true, false,
                "O:BAG:SYD:PAI(D;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;WD)")), List.of());
        assertThat(plan).containsSubsequence("secure\t.\t" + FOLDER_GRANTS, "remove-ace\t.\t/remove:d\t*S-1-5-32-544",
                "remove-ace\t.\t/remove\t*S-1-1-0");
    }

    @Test
    void aFolderAdministratorsCannotListIsRefused() {
        List<String> plan = planner.plan(DATA, PARENTS, Optional.of(new Item(DATA, true, false, "")),
                List.of(new Item(".", true, false, null)));
        assertThat(plan).singleElement().asString().startsWith("refuse\t" + DATA + " could not be listed");
    }

    @Test
    void anUnreadableEntryIsSetAside() {
        List<String> plan = planner.plan(DATA, PARENTS, Optional.of(new Item(DATA, true, false, PRIVATE_FOLDER)),
                List.of(new Item("jvm.options", false, false, null)));
        assertThat(plan).contains("set-aside\tjvm.options\tjvm.options" + SUFFIX
                + "\tits owner or its contents could not be read", "copy-default\tjvm.options");
    }

    @Test
    void theProgramFolderIsRefusedUnderAChangeableParentOrWhenSomeoneElseMadeIt() {
        List<Item> programFiles = List.of(new Item("C:\\Program Files", true, false, PROGRAM_FILES),
                new Item("C:\\", true, false, DRIVE_ROOT));
        String program = "C:\\Program Files\\scheduled-events-bridge";
        assertThat(DataFolderPlan.programFolderRefusals(program, programFiles, Optional.empty())).isEmpty();
        assertThat(DataFolderPlan.programFolderRefusals(program, programFiles,
                Optional.of(new Item(program, true, false, PRIVATE_FOLDER)))).isEmpty();
        assertThat(DataFolderPlan.programFolderRefusals(program, programFiles,
                Optional.of(new Item(program, true, false, FOLDER_MADE_BY_USER)))).singleElement().asString()
                .contains("owned by " + USER);
        assertThat(DataFolderPlan.programFolderRefusals("C:\\data\\seb",
                List.of(new Item("C:\\data", true, false, ADMIN_FOLDER_IN_DRIVE_ROOT)), Optional.empty()))
                .singleElement().asString().startsWith("refuse\tC:\\data\\seb is under C:\\data");
    }
}
