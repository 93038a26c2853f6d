package io.github.scheduledeventsbridge.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Debian 12 with a real systemd 252, booted with systemd-nspawn: the machine the .deb is made for.
 * <p>The root file system (debootstrap's minbase plus {@link #PACKAGES}) is built once and cached outside the
 * checkout, under {@code ~/.cache/scheduled-events-bridge/}, keyed by a hash of how it is built; each boot runs
 * on an overlay of it that goes away at {@link #close()}, so the cache stays as debootstrap left it. The
 * container has its own network namespace with only loopback ({@code --private-network}): nothing in it can
 * reach any address but its own. Commands run inside with nsenter, as root.
 */
final class BookwormSystemd implements AutoCloseable {

    /** What the tests need beyond minbase: systemd and D-Bus to run units, polkit for the rule, ss and curl for the examples. */
    static final String PACKAGES = "systemd,dbus,libnss-systemd,libpam-systemd,polkitd,iproute2,curl";
    /** Units that would run apt or other chores at random moments of a test. */
    private static final List<String> MASKED = List.of("apt-daily.timer", "apt-daily-upgrade.timer",
            "dpkg-db-backup.timer", "e2scrub_all.timer", "fstrim.timer", "systemd-tmpfiles-clean.timer");
    private static final String RECIPE = "debootstrap --variant=minbase --include=" + PACKAGES + " bookworm; masked "
            + MASKED + "; no .deb cache";
    private static final Path CACHE = Path.of(System.getProperty("user.home"), ".cache", "scheduled-events-bridge");

    private final Path run;
    private final Path root;
    private final Process nspawn;
    private final long leader;
    private final Thread reaper;

    private BookwormSystemd(Path run, Path root, Process nspawn, long leader) {
        this.run = run;
        this.root = root;
        this.nspawn = nspawn;
        this.leader = leader;
        this.reaper = new Thread(this::kill, "kill-container");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** The cached root, built first when there is none (about a minute, ~270 MB; needs root and the Debian archive). */
    static Path cachedRoot() throws Exception {
        String key = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(RECIPE.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        Path cached = CACHE.resolve("bookworm-systemd-" + key);
        Files.createDirectories(CACHE);
        // Another build (another test run on this machine) may be making it: one at a time, then use theirs.
        try (FileChannel lockFile = FileChannel.open(CACHE.resolve("bookworm-systemd-" + key + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = lockFile.lock()) {
            if (Files.isDirectory(cached)) {
                return cached;
            }
            Path partial = CACHE.resolve("bookworm-systemd-" + key + ".partial");
            run(List.of("rm", "-rf", partial.toString()), Duration.ofMinutes(1));
            run(List.of("debootstrap", "--variant=minbase", "--include=" + PACKAGES, "bookworm", partial.toString()),
                    Duration.ofMinutes(10));
            for (String unit : MASKED) {
                Path link = partial.resolve("etc/systemd/system").resolve(unit);
                Files.deleteIfExists(link);
                Files.createSymbolicLink(link, Path.of("/dev/null"));
            }
            try (Stream<Path> debs = Files.list(partial.resolve("var/cache/apt/archives"))) {
                for (Path deb : debs.filter(p -> p.toString().endsWith(".deb")).toList()) {
                    Files.delete(deb);
                }
            }
            Files.move(partial, cached);
            return cached;
        }
    }

    /** Boots a container on an overlay of {@code lower}, waits until systemd says the boot is done. */
    static BookwormSystemd boot(Path lower) throws Exception {
        Path run = Files.createTempDirectory("seb-nspawn-");
        Path upper = Files.createDirectories(run.resolve("upper"));
        Path work = Files.createDirectories(run.resolve("work"));
        Path root = Files.createDirectories(run.resolve("root"));
        run(List.of("mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work,
                root.toString()), Duration.ofSeconds(30));
        // --private-network: the package starts the agent at once, and without settings it would poll 169.254.169.254.
        Process nspawn = new ProcessBuilder("systemd-nspawn", "-D", root.toString(), "-b", "--register=no", "--keep-unit",
                "--private-network", "--machine=seb-it-" + ProcessHandle.current().pid())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(run.resolve("console.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Optional<Long> leader = Optional.empty();
        while (leader.isEmpty() && nspawn.isAlive() && System.nanoTime() < deadline) {
            leader = nspawn.descendants().map(ProcessHandle::pid).filter(BookwormSystemd::isNamespaceInit).findFirst();
            if (leader.isEmpty()) {
                nspawn.waitFor(100, TimeUnit.MILLISECONDS);
            }
        }
        assertThat(leader).as("the container's init (systemd-nspawn said:\n" + Files.readString(run.resolve("console.log")) + ")")
                .isPresent();
        BookwormSystemd container = new BookwormSystemd(run, root, nspawn, leader.get());
        try {
            // The namespace's first process is nspawn's own until it execs systemd; then systemd needs its bus.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> container.exec("systemctl is-system-running", Duration.ofSeconds(10)).output()
                            .matches("(initializing|starting|running|degraded)\n"));
            HostCommand.Result booted = container.exec("systemctl is-system-running --wait; systemctl --failed --no-legend", Duration.ofSeconds(90));
            assertThat(booted.output()).as("boot").startsWith("running");
            return container;
        } catch (Exception | AssertionError e) {
            container.close();
            throw e;
        }
    }

    private static boolean isNamespaceInit(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
                    .anyMatch(line -> line.startsWith("NSpid:") && line.endsWith("\t1"));
        } catch (IOException | UncheckedIOException gone) {
            return false;
        }
    }

    /** The container's root as the host sees it: files written here are the container's. */
    Path root() {
        return root;
    }

    /** A shell script inside, as root, with a clean environment; stdin is /dev/null. */
    HostCommand.Result exec(String script, Duration timeout) throws Exception {
        return run(List.of("nsenter", "--target=" + leader, "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup",
                "--root", "--wd", "env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LANG=C.UTF-8", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", "/bin/sh", "-c", script), timeout, false);
    }

    /** {@link #exec} that must exit 0; its output. */
    String sh(String script) throws Exception {
        HostCommand.Result result = exec(script, Duration.ofMinutes(3));
        assertThat(result.exitCode()).as(script + "\nsaid:\n" + result.output()).isZero();
        return result.output();
    }

    private static String run(List<String> command, Duration timeout) throws Exception {
        return HostCommand.must(command, timeout);
    }

    private static HostCommand.Result run(List<String> command, Duration timeout, boolean mustSucceed) throws Exception {
        return mustSucceed ? new HostCommand.Result(0, HostCommand.must(command, timeout)) : HostCommand.run(command, timeout);
    }

    /** The container's journal and console, kept for a failed run's post-mortem. */
    void keepLogs(Path directory) throws Exception {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("journal.txt"), exec("journalctl -b --no-pager -o short-precise", Duration.ofSeconds(60)).output());
        Files.copy(run.resolve("console.log"), directory.resolve("console.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** Powers the container off (SIGTERM to nspawn), kills it if it does not go, then drops the overlay. */
    @Override
    public void close() throws Exception {
        nspawn.destroy();
        if (!nspawn.waitFor(30, TimeUnit.SECONDS)) {
            kill();
        }
        Runtime.getRuntime().removeShutdownHook(reaper);
        if (run(List.of("umount", root.toString()), Duration.ofSeconds(30), false).exitCode() != 0) {
            run(List.of("umount", "--lazy", root.toString()), Duration.ofSeconds(30), true);
        }
        run(List.of("rm", "-rf", "--one-file-system", run.toString()), Duration.ofMinutes(2), true);
    }

    /** SIGKILL to the container's init ends every process of its PID namespace; then nspawn ends too. */
    private void kill() {
        ProcessHandle.of(leader).ifPresent(ProcessHandle::destroyForcibly);
        nspawn.destroyForcibly();
        try {
            nspawn.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
