package io.github.scheduledeventsbridge.packaging;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Rootful podman as this machine runs it (STACK: Debian's runc, since crun refuses the hybrid cgroups; ulimits
 * below the hard limits, which the machine does not let a container raise), and the two local base images the
 * Dockerfile is built from here, made from Debian packages as the public ones would be: a build image (minbase,
 * the JDK 17 with its jmods, Maven, and binutils: Debian's jlink strips native debug symbols with objcopy) and a
 * runtime image (minbase, slimmed as debian:bookworm-slim is).
 * <p>Each base image is tagged with a hash of its recipe and kept in podman's store between runs; a changed
 * recipe makes a new one and drops the old tags. No registry is involved ({@code --pull=never}).
 */
final class Podman {

    /** The flags every podman command that runs a container takes here. */
    static final List<String> RUN_FLAGS = List.of("--runtime", "runc", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096");
    static final String PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    private static final Path CACHE = Path.of(System.getProperty("user.home"), ".cache", "scheduled-events-bridge");
    /** What debian:bookworm-slim leaves out of a minbase root (copyright files stay). */
    private static final String SLIM = "rm -rf usr/share/man/* usr/share/info/* usr/share/locale/* usr/share/lintian"
            + " var/lib/apt/lists/* var/cache/apt/*.bin var/cache/apt/archives/*.deb var/log/*"
            + " && find usr/share/doc -type f ! -name copyright -delete";

    /** A base image: its name and how it is made. */
    enum Base {
        BUILD("seb-it-build", "openjdk-17-jdk-headless,maven,binutils", "ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64"),
        RUNTIME("seb-it-runtime", "", null);

        private final String name;
        private final String packages;
        private final String change;

        Base(String name, String packages, String change) {
            this.name = name;
            this.packages = packages;
            this.change = change;
        }

        private String recipe() {
            return "debootstrap --variant=minbase --include=" + packages + " bookworm; " + SLIM + "; import ENV " + PATH
                    + (change == null ? "" : "; " + change);
        }

        /** localhost/NAME:KEY, KEY a hash of the recipe. */
        String image() throws Exception {
            String key = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(recipe().getBytes(StandardCharsets.UTF_8))).substring(0, 16);
            return "localhost/" + name + ":" + key;
        }
    }

    private Podman() {
    }

    /** The base image, made first when podman has none for its recipe (a minute or two; needs root and the Debian archive). */
    static String base(Base base) throws Exception {
        String image = base.image();
        Files.createDirectories(CACHE);
        // Another test run on this machine may be making it: one at a time, then use theirs.
        try (FileChannel lockFile = FileChannel.open(CACHE.resolve(base.name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = lockFile.lock()) {
            if (run(List.of("podman", "image", "exists", image), Duration.ofMinutes(1)).exitCode() == 0) {
                return image;
            }
            Path root = CACHE.resolve(base.name + ".partial");
            must(List.of("rm", "-rf", "--one-file-system", root.toString()), Duration.ofMinutes(2));
            List<String> debootstrap = new ArrayList<>(List.of("debootstrap", "--variant=minbase"));
            if (!base.packages.isEmpty()) {
                debootstrap.add("--include=" + base.packages);
            }
            debootstrap.addAll(List.of("bookworm", root.toString()));
            must(debootstrap, Duration.ofMinutes(15));
            List<String> importing = new ArrayList<>(List.of("podman", "import", "--change", "ENV " + PATH));
            if (base.change != null) {
                importing.addAll(List.of("--change", base.change));
            }
            importing.addAll(List.of("-", image));
            must(List.of("bash", "-c", "set -euo pipefail; cd " + root + " && " + SLIM + " && tar -c . | "
                    + String.join(" ", importing.stream().map(Podman::quoted).toList())), Duration.ofMinutes(10));
            must(List.of("rm", "-rf", "--one-file-system", root.toString()), Duration.ofMinutes(2));
            // Earlier recipes' images go.
            String others = must(List.of("podman", "images", "--format", "{{.Repository}}:{{.Tag}}", "localhost/" + base.name), Duration.ofMinutes(1));
            for (String other : others.lines().filter(line -> !line.isBlank() && !line.equals(image)).toList()) {
                run(List.of("podman", "rmi", other), Duration.ofMinutes(1));
            }
            return image;
        }
    }

    private static String quoted(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** podman with these arguments; its result, whatever the exit code. */
    static HostCommand.Result podman(Duration timeout, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("podman"));
        command.addAll(List.of(args));
        return run(command, timeout);
    }

    /** podman with these arguments, which must exit 0; what it printed. */
    static String must(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("podman"));
        command.addAll(List.of(args));
        return must(command, Duration.ofMinutes(3));
    }

    static String must(List<String> command, Duration timeout) throws Exception {
        return HostCommand.must(command, timeout);
    }

    static HostCommand.Result run(List<String> command, Duration timeout) throws Exception {
        return HostCommand.run(command, timeout);
    }
}
