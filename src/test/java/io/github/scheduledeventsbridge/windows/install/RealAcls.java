package io.github.scheduledeventsbridge.windows.install;

/**
 * Security descriptors as {@code (Get-Acl -LiteralPath X).Sddl} reports them on Windows Server: the folders' own
 * (C:\, C:\ProgramData, C:\Program Files, a user's profile) and what a standard user's or an old install's folders
 * and files look like.
 */
final class RealAcls {

    static final String SERVICE = ServiceSid.of("scheduled-events-bridge");
    /** A standard user (the example SID of Microsoft's documentation) and its domain's users group. */
    static final String USER = "S-1-5-21-1004336348-1177238915-682003330-1001";
    static final String USER_GROUP = "S-1-5-21-1004336348-1177238915-682003330-513";
    static final String TI = SecurityDescriptor.TRUSTED_INSTALLER;

    /** C:\: Authenticated Users may create folders in it, and modify what they inherit (inherit-only here). */
    static final String DRIVE_ROOT = "O:SYG:SYD:PAI(A;OICIIO;SDGXGWGR;;;AU)(A;;LC;;;AU)(A;OICI;FA;;;SY)"
            + "(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)";
    /** C:\ on Windows Server: Users may create folders in it, and files in what they inherit (inherit-only here). */
    static final String DRIVE_ROOT_SERVER = "O:SYG:SYD:PAI(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICIIO;GA;;;CO)"
            + "(A;OICI;0x1200a9;;;BU)(A;CI;LC;;;BU)(A;CIIO;DC;;;BU)";
    /** C:\ProgramData: Users may create files and folders in it (the hole the data folder must not inherit). */
    static final String PROGRAM_DATA = "O:SYG:SYD:PAI(A;OICIIO;FA;;;CO)(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
            + "(A;OICI;0x1200a9;;;BU)(A;CI;DCLCRPCR;;;BU)";
    /** C:\Program Files, owned by TrustedInstaller. */
    static final String PROGRAM_FILES = "O:" + TI + "G:" + TI + "D:PAI(A;;FA;;;" + TI + ")(A;CIIO;GA;;;" + TI + ")"
            + "(A;;0x1301bf;;;SY)(A;OICIIO;GA;;;SY)(A;;0x1301bf;;;BA)(A;OICIIO;GA;;;BA)(A;;0x1200a9;;;BU)"
            + "(A;OICIIO;GXGR;;;BU)(A;OICIIO;GA;;;CO)(A;;0x1200a9;;;AC)(A;OICIIO;GXGR;;;AC)"
            + "(A;;0x1200a9;;;S-1-15-2-2)(A;OICIIO;GXGR;;;S-1-15-2-2)";
    /** A folder an administrator made in C:\: it inherits Authenticated Users' modify right (SD, delete). */
    static final String ADMIN_FOLDER_IN_DRIVE_ROOT = "O:BAG:S-1-5-21-1004336348-1177238915-682003330-513"
            + "D:AI(A;OICIIOID;SDGXGWGR;;;AU)(A;ID;0x1301bf;;;AU)(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)"
            + "(A;OICIID;0x1200a9;;;BU)";
    /** A user profile folder (C:\Users\NAME): the user has full control. */
    static final String USER_PROFILE = "O:SYG:SYD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;" + USER + ")";

    /** scheduled-events-bridge made in C:\ProgramData by the standard user, who then granted itself full control. */
    static final String FOLDER_MADE_BY_USER = "O:" + USER + "G:" + USER_GROUP + "D:AI(A;OICI;FA;;;" + USER + ")"
            + "(A;ID;FA;;;" + USER + ")(A;OICIIOID;FA;;;CO)(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)"
            + "(A;OICIID;0x1200a9;;;BU)(A;CIID;DCLCRPCR;;;BU)";
    /** The same folder after an earlier install.ps1: owner Administrators, but the user's explicit ACE survived. */
    static final String FOLDER_AFTER_OLD_INSTALL = "O:BAG:" + USER_GROUP + "D:PAI(A;OICI;FA;;;" + USER + ")"
            + "(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;" + SERVICE + ")";
    /** What install.ps1 leaves: Administrators own it; SYSTEM, Administrators and the service, nobody else. */
    static final String PRIVATE_FOLDER = "O:BAG:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;"
            + SERVICE + ")";
    /** A file the user planted in the folder (jvm.options with a -javaagent:). */
    static final String FILE_BY_USER = "O:" + USER + "G:" + USER_GROUP + "D:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)"
            + "(A;ID;0x1200a9;;;BU)(A;ID;FA;;;" + USER + ")";
    /** A file the service wrote (the spool, state.json): owned by its own SID, inheriting the folder's ACL. */
    static final String FILE_BY_SERVICE = "O:" + SERVICE + "G:SYD:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;0x1301bf;;;"
            + SERVICE + ")";
    /** A file an administrator copied in, owned by Administrators, with an explicit grant to Everyone added. */
    static final String FILE_BY_ADMIN_OPENED_TO_EVERYONE = "O:BAG:SYD:AI(A;;FA;;;WD)(A;ID;FA;;;SY)(A;ID;FA;;;BA)"
            + "(A;ID;0x1301bf;;;" + SERVICE + ")";
    /** bridge.properties as install.ps1 leaves it: the service may read it. */
    static final String PRIVATE_SETTINGS = "O:BAG:SYD:PAI(A;;FA;;;SY)(A;;FA;;;BA)(A;;0x1200a9;;;" + SERVICE + ")";

    private RealAcls() {
    }
}
