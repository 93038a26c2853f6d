package io.github.scheduledeventsbridge.windows.install;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What install.ps1 does to the data folder ({@code %ProgramData%\scheduled-events-bridge}), decided from what Windows
 * reports about it before anything is changed: any standard user may create that folder, or files in it, before the
 * first install, so nothing in it is trusted for being there.
 * <ul>
 * <li>a junction or symbolic link (the folder, a parent, or anything in it) refuses the install: nothing follows one;
 * <li>a parent that someone other than SYSTEM, Administrators or TrustedInstaller may rename, delete or re-permission
 * refuses it (that someone could swap the folder);
 * <li>the folder gets Administrators as owner and exactly SYSTEM, Administrators and the service's SID in its DACL;
 * <li>whatever in it is owned by anyone but SYSTEM, Administrators or the service itself (whose own files are its
 * state) is set aside: renamed, not used, one line each; unless the administrator trusts it explicitly
 * ({@code -TrustExistingFiles}), then it is taken over;
 * <li>what is kept loses every explicit ACE (it inherits the folder's), but for the settings, jvm.options and
 * actions\, which the service may only read.
 * </ul>
 * The plan is a list of lines the script applies in order, tab-separated (a Windows file name holds no tab).
 */
public final class DataFolderPlan {

    /** Directories the agent and the installer expect, and the files the installer copies once. */
    public static final List<String> DIRECTORIES = List.of("logs", "tmp", "actions");
    static final List<String> DEFAULT_FILES = List.of("bridge.properties", "jvm.options");

    static final String MODIFY = "0x1301bf";
    private static final Set<String> TRUSTED_PARENTS = Set.of(SecurityDescriptor.SYSTEM,
            SecurityDescriptor.ADMINISTRATORS, SecurityDescriptor.TRUSTED_INSTALLER);
    static final String READ_EXECUTE = "0x1200a9";

    public record Item(String path, boolean directory, boolean reparsePoint, String sddl) {
    }

    private final String serviceSid;
    private final boolean trustExisting;
    private final String setAsideSuffix;

    /** {@code setAsideSuffix}, e.g. {@code .untrusted-20261128-140000}, is appended to what is set aside. */
    public DataFolderPlan(String serviceName, boolean trustExisting, String setAsideSuffix) {
        this.serviceSid = ServiceSid.of(serviceName);
        this.trustExisting = trustExisting;
        this.setAsideSuffix = setAsideSuffix;
    }

    /** The folder's owner and DACL when install.ps1 creates it: the SDDL handed to CreateDirectory. */
    public String newFolderSddl() {
        // No group: Windows gives the creator's primary group, as to any new folder.
        return "O:BAD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;" + MODIFY + ";;;" + serviceSid + ")";
    }

    /**
     * @param ancestors the folder's parents, each with its path, up to the drive's root
     * @param folder    the folder itself, or empty when it does not exist
     * @param entries   everything in it (paths relative to it, {@code \}-separated), listed without following a
     *                  reparse point; an entry whose folder could not be listed has a null SDDL
     */
    public List<String> plan(String folderPath, List<Item> ancestors, Optional<Item> folder, List<Item> entries) {
        List<String> refusals = refusals(folderPath, ancestors, folder, entries);
        if (!refusals.isEmpty()) {
            return refusals;
        }
        List<String> plan = new ArrayList<>();
        if (folder.isEmpty()) {
            plan.add(line("create-folder", newFolderSddl()));
        } else {
            secure(plan, ".", folder.get(), grants(true, "M"));
        }
        Set<String> present = new LinkedHashSet<>();
        List<String> setAside = new ArrayList<>();
        for (Item entry : entries.stream().sorted(Comparator.comparing(Item::path)).toList()) {
            if (setAside.stream().anyMatch(parent -> entry.path().startsWith(parent + "\\"))) {
                continue;
            }
            Optional<String> untrusted = untrustedOwner(entry);
            if (untrusted.isPresent() && !trustExisting) {
                setAside.add(entry.path());
                plan.add(line("set-aside", entry.path(), name(entry.path()) + setAsideSuffix, untrusted.get()));
                continue;
            }
            present.add(entry.path());
            if (special(entry.path())) {
                continue;
            }
            SecurityDescriptor sd = entry.sddl() == null ? null : SecurityDescriptor.parse(entry.sddl());
            boolean foreign = untrusted.isPresent();
            if (foreign) {
                plan.add(line("take-ownership", entry.path()));
            }
            if (foreign || sd.isProtected() || !sd.explicitAces().isEmpty()) {
                plan.add(line("inherit", entry.path()));
            }
        }
        for (String directory : DIRECTORIES) {
            if (!present.contains(directory)) {
                plan.add(line("create-directory", directory));
            }
        }
        for (String file : DEFAULT_FILES) {
            if (!present.contains(file)) {
                plan.add(line("copy-default", file));
            }
        }
        Item fresh = new Item("", false, false, "O:BAG:SYD:");
        for (String file : DEFAULT_FILES) {
            secure(plan, file, entry(entries, file).filter(e -> present.contains(file)).orElse(fresh),
                    grants(false, "RX"));
        }
        secure(plan, "actions", entry(entries, "actions").filter(e -> present.contains("actions")).orElse(fresh),
                grants(true, "RX"));
        return plan;
    }

    /**
     * The program folder ({@code -InstallDir}): refused under a parent others may change, as a junction or symbolic
     * link, or when it exists and is not owned by SYSTEM, Administrators or TrustedInstaller.
     */
    public static List<String> programFolderRefusals(String folderPath, List<Item> ancestors, Optional<Item> folder) {
        List<String> refusals = refusals(folderPath, ancestors, folder, List.of());
        if (refusals.isEmpty() && folder.isPresent()) {
            String owner;
            try {
                owner = SecurityDescriptor.parse(folder.get().sddl()).owner();
            } catch (IllegalArgumentException unreadable) {
                owner = unreadable.getMessage();
            }
            if (!TRUSTED_PARENTS.contains(owner)) {
                refusals.add(line("refuse", folderPath + " exists and is owned by " + owner + ", not by SYSTEM or "
                        + "Administrators: someone else made it. Remove it (after reading it) or choose another "
                        + "-InstallDir"));
            }
        }
        return refusals;
    }

    private static List<String> refusals(String folderPath, List<Item> ancestors, Optional<Item> folder,
            List<Item> entries) {
        List<String> refusals = new ArrayList<>();
        for (Item ancestor : ancestors) {
            if (ancestor.reparsePoint()) {
                refusals.add(line("refuse", folderPath + " is under " + ancestor.path() + ", a junction or symbolic "
                        + "link: choose a folder whose path has none"));
                continue;
            }
            List<String> others;
            try {
                others = SecurityDescriptor.parse(ancestor.sddl()).othersGranted(SecurityDescriptor.REPLACE_BELOW,
                        TRUSTED_PARENTS);
            } catch (IllegalArgumentException unreadable) {
                others = List.of(unreadable.getMessage());
            }
            if (!others.isEmpty()) {
                refusals.add(line("refuse", folderPath + " is under " + ancestor.path() + ", which "
                        + String.join(", ", others) + " may rename, delete or re-permission: choose a folder whose "
                        + "parents only SYSTEM and Administrators can change"));
            }
        }
        if (folder.isPresent() && folder.get().reparsePoint()) {
            refusals.add(line("refuse", folderPath + " is a junction or symbolic link: nothing follows one. Remove "
                    + "it (Remove-Item removes the link, not its target) and run install.ps1 again"));
        }
        for (Item entry : entries) {
            if (entry.path().equals(".")) {
                refusals.add(line("refuse", folderPath + " could not be listed: whoever made it allowed Administrators "
                        + "nothing. Read it after taking it over (takeown /F <folder> /A; icacls <folder> /reset), or "
                        + "remove it, and run install.ps1 again"));
            } else if (entry.reparsePoint()) {
                refusals.add(line("refuse", folderPath + "\\" + entry.path() + " is a junction or symbolic link: "
                        + "nothing follows one. Remove it (Remove-Item removes the link, not its target) and run "
                        + "install.ps1 again"));
            }
        }
        return refusals;
    }

    /** Why an entry is not the installer's, the service's or SYSTEM's: empty when it is. */
    private Optional<String> untrustedOwner(Item entry) {
        if (entry.sddl() == null) {
            return Optional.of("its owner or its contents could not be read");
        }
        SecurityDescriptor sd;
        try {
            sd = SecurityDescriptor.parse(entry.sddl());
        } catch (IllegalArgumentException unreadable) {
            return Optional.of(unreadable.getMessage());
        }
        Set<String> trusted = Set.of(SecurityDescriptor.SYSTEM, SecurityDescriptor.ADMINISTRATORS, serviceSid);
        return trusted.contains(sd.owner()) ? Optional.empty()
                : Optional.of("owned by " + sd.owner() + ", not by SYSTEM, Administrators or the service");
    }

    /**
     * icacls: {@code /inheritance:r /grant:r} the grants, then {@code /remove} each other SID an explicit ACE names
     * (grant:r leaves those) and {@code /remove:d} a deny entry of a granted one, so that no moment has more than the
     * ACL before or after. One whose ACL could not be read
     * is taken over and reset first.
     */
    private void secure(List<String> plan, String path, Item current, List<String> grants) {
        SecurityDescriptor sd;
        try {
            sd = SecurityDescriptor.parse(current.sddl());
        } catch (IllegalArgumentException unreadable) {
            sd = null;
        }
        if (sd == null || !sd.owner().equals(SecurityDescriptor.ADMINISTRATORS)) {
            plan.add(line("take-ownership", path));
        }
        if (sd == null) {
            plan.add(line("inherit", path));
        }
        List<String> fields = new ArrayList<>(List.of("secure", path));
        fields.addAll(grants);
        plan.add(String.join("\t", fields));
        if (sd != null) {
            Set<String> granted = Set.of(SecurityDescriptor.SYSTEM, SecurityDescriptor.ADMINISTRATORS, serviceSid);
            // Others lose every entry; SYSTEM, Administrators or the service only a deny entry (not the grant above).
            sd.explicitAces().stream().filter(a -> !a.allow() || !granted.contains(a.sid()))
                    .map(a -> granted.contains(a.sid()) ? "/remove:d\t*" + a.sid() : "/remove\t*" + a.sid())
                    .distinct().forEach(remove -> plan.add(line("remove-ace", path, remove)));
        }
    }

    /** icacls grants by SID: SYSTEM and Administrators full control, the service {@code serviceRights}. */
    private List<String> grants(boolean container, String serviceRights) {
        String inherit = container ? "(OI)(CI)" : "";
        return List.of("*" + SecurityDescriptor.SYSTEM + ":" + inherit + "F",
                "*" + SecurityDescriptor.ADMINISTRATORS + ":" + inherit + "F",
                "*" + serviceSid + ":" + inherit + serviceRights);
    }

    private static boolean special(String path) {
        return DEFAULT_FILES.contains(path) || path.equals("actions");
    }

    private static Optional<Item> entry(List<Item> entries, String path) {
        return entries.stream().filter(e -> e.path().equals(path)).findFirst();
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('\\') + 1);
    }

    private static String line(String... fields) {
        return String.join("\t", fields);
    }
}
