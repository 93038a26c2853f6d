package io.github.scheduledeventsbridge.windows.install;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The owner and the DACL of a file or folder, from the SDDL that {@code (Get-Acl -LiteralPath X).Sddl} reports, with
 * the aliases Windows writes (SY, BA, BU…) turned into SIDs and the rights into an access mask. Only what the installer
 * decides on: allow and deny ACEs; any other ACE type is kept with its mask, so that it counts as a grant.
 */
public record SecurityDescriptor(String owner, boolean isProtected, List<Ace> dacl) {

    public static final String SYSTEM = "S-1-5-18";
    public static final String ADMINISTRATORS = "S-1-5-32-544";
    public static final String TRUSTED_INSTALLER = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";

    // File rights (winnt.h).
    static final int WRITE_DATA_OR_ADD_FILE = 0x2;
    static final int APPEND_DATA_OR_ADD_SUBDIRECTORY = 0x4;
    static final int WRITE_EA = 0x10;
    static final int DELETE_CHILD = 0x40;
    static final int WRITE_ATTRIBUTES = 0x100;
    static final int DELETE = 0x10000;
    static final int WRITE_DAC = 0x40000;
    static final int WRITE_OWNER = 0x80000;
    static final int GENERIC_ALL = 0x10000000;
    static final int GENERIC_WRITE = 0x40000000;
    /** Rights that let their holder change a file or folder, what it holds, or who may. */
    public static final int ANY_WRITE = WRITE_DATA_OR_ADD_FILE | APPEND_DATA_OR_ADD_SUBDIRECTORY | WRITE_EA
            | DELETE_CHILD | WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_ALL | GENERIC_WRITE;
    /** Rights that let their holder remove or rename what a folder holds, or give itself those rights. */
    public static final int REPLACE_BELOW = DELETE_CHILD | DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_ALL;

    private static final Map<String, Integer> RIGHTS = Map.ofEntries(
            Map.entry("GA", GENERIC_ALL), Map.entry("GR", 0x80000000), Map.entry("GW", GENERIC_WRITE),
            Map.entry("GX", 0x20000000), Map.entry("RC", 0x20000), Map.entry("SD", DELETE), Map.entry("WD", WRITE_DAC),
            Map.entry("WO", WRITE_OWNER), Map.entry("CC", 0x1), Map.entry("DC", 0x2), Map.entry("LC", 0x4),
            Map.entry("SW", 0x8), Map.entry("RP", 0x10), Map.entry("WP", 0x20), Map.entry("DT", 0x40),
            Map.entry("LO", 0x80), Map.entry("CR", 0x100), Map.entry("FA", 0x1F01FF), Map.entry("FR", 0x120089),
            Map.entry("FW", 0x120116), Map.entry("FX", 0x1200A0));

    private static final Map<String, String> SIDS = Map.ofEntries(
            Map.entry("SY", SYSTEM), Map.entry("BA", ADMINISTRATORS), Map.entry("BU", "S-1-5-32-545"),
            Map.entry("BG", "S-1-5-32-546"), Map.entry("PU", "S-1-5-32-547"), Map.entry("BO", "S-1-5-32-551"),
            Map.entry("SO", "S-1-5-32-549"), Map.entry("AO", "S-1-5-32-548"), Map.entry("RD", "S-1-5-32-555"),
            Map.entry("WD", "S-1-1-0"), Map.entry("AU", "S-1-5-11"), Map.entry("IU", "S-1-5-4"),
            Map.entry("NU", "S-1-5-2"), Map.entry("SU", "S-1-5-6"), Map.entry("AN", "S-1-5-7"),
            Map.entry("PS", "S-1-5-10"), Map.entry("LS", "S-1-5-19"), Map.entry("NS", "S-1-5-20"),
            Map.entry("CO", "S-1-3-0"), Map.entry("CG", "S-1-3-1"), Map.entry("OW", "S-1-3-4"),
            Map.entry("AC", "S-1-15-2-1"));

    private static final Pattern ACE = Pattern.compile("\\(([^;()]*);([^;()]*);([^;()]*);([^;()]*);([^;()]*);([^;()]*)\\)");

    public record Ace(boolean allow, String flags, int mask, String sid) {

        public boolean inherited() {
            return flags.contains("ID");
        }

        /** Whether it applies to the object itself (an inherit-only ACE is only passed on). */
        public boolean appliesToObject() {
            return !flags.contains("IO");
        }

        public boolean grants(int rights) {
            return allow && appliesToObject() && (mask & rights) != 0;
        }
    }

    /** Parses {@code Get-Acl}'s SDDL; an empty or unreadable one throws, naming what is wrong. */
    public static SecurityDescriptor parse(String sddl) {
        if (sddl == null || sddl.isBlank()) {
            throw new IllegalArgumentException("no security descriptor (its ACL could not be read)");
        }
        Matcher owner = Pattern.compile("O:([^:()]+?)(?=[GDS]:|$)").matcher(sddl);
        if (!owner.find()) {
            throw new IllegalArgumentException("no owner in " + sddl);
        }
        int daclStart = sddl.indexOf("D:");
        if (daclStart < 0) {
            throw new IllegalArgumentException("no DACL in " + sddl);
        }
        int saclStart = sddl.indexOf("S:", daclStart);
        String dacl = sddl.substring(daclStart + 2, saclStart < 0 ? sddl.length() : saclStart);
        int firstAce = dacl.indexOf('(');
        String daclFlags = firstAce < 0 ? dacl : dacl.substring(0, firstAce);
        List<Ace> aces = new ArrayList<>();
        Matcher ace = ACE.matcher(dacl);
        int end = firstAce < 0 ? dacl.length() : firstAce;
        while (ace.find()) {
            if (ace.start() != end) {
                throw new IllegalArgumentException("an ACE that is not understood in " + sddl);
            }
            end = ace.end();
            aces.add(new Ace(!ace.group(1).equals("D"), ace.group(2), rights(ace.group(3)), sid(ace.group(6))));
        }
        if (end != dacl.length()) {
            throw new IllegalArgumentException("an ACE that is not understood in " + sddl);
        }
        return new SecurityDescriptor(sid(owner.group(1)), daclFlags.contains("P"), List.copyOf(aces));
    }

    static String sid(String sddlSid) {
        String sid = sddlSid.startsWith("S-") ? sddlSid : SIDS.get(sddlSid);
        if (sid == null) {
            // A domain's alias (DA, DU…): its SID is not known here, so nothing is decided on it.
            throw new IllegalArgumentException("an account alias that is not understood: " + sddlSid);
        }
        return sid;
    }

    static int rights(String text) {
        if (text.startsWith("0x") || text.startsWith("0X")) {
            return (int) Long.parseLong(text.substring(2), 16);
        }
        int mask = 0;
        for (int i = 0; i + 1 < text.length(); i += 2) {
            Integer right = RIGHTS.get(text.substring(i, i + 2));
            if (right == null) {
                throw new IllegalArgumentException("unknown right " + text.substring(i, i + 2) + " in " + text);
            }
            mask |= right;
        }
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException("unknown rights " + text);
        }
        return mask;
    }

    /** The explicit (not inherited) ACEs. */
    public List<Ace> explicitAces() {
        return dacl.stream().filter(a -> !a.inherited()).toList();
    }

    /** The SIDs other than {@code trusted} that this ACL lets do any of {@code rights} to the object itself. */
    public List<String> othersGranted(int rights, java.util.Set<String> trusted) {
        List<String> others = new ArrayList<>();
        if (!trusted.contains(owner)) {
            others.add(owner + " (owner)");
        }
        dacl.stream().filter(a -> a.grants(rights) && !trusted.contains(a.sid())).map(Ace::sid).distinct()
                .forEach(others::add);
        return others;
    }
}
