package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * Another file system (the default one, or Jimfs with Windows' path rules) with the faults storage code must survive,
 * injected where a test says, each counted:
 * <ul>
 *   <li>{@link #holdOpen}: a file another process holds open (antivirus, backup) — its renames and deletes meet a
 *       sharing violation, as Windows reports them (AccessDeniedException, or a FileSystemException "being used by
 *       another process");</li>
 *   <li>{@link #refuseDirectoryChannels}: a directory cannot be opened as a file, as on Windows;</li>
 *   <li>{@link #refuseWrites}: no file may be created, written, renamed or deleted there (a full or read-only disk);</li>
 *   <li>{@link #flushesWithoutWriteAccess}: forces on a channel opened read-only, which Windows ignores silently.</li>
 * </ul>
 */
public final class FaultyFileSystem extends FileSystem {

    static final String SHARING_VIOLATION = "The process cannot access the file because it is being used by another process";

    private final FileSystem delegate;
    private final FaultyFileSystemProvider provider;
    private volatile Predicate<Path> heldOpen = path -> false;
    private volatile int holds;
    /** Per file: how many more renames or deletes meet a sharing violation. */
    private final java.util.Map<Path, AtomicInteger> holding = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger sharingViolations = new AtomicInteger();
    private volatile boolean refuseDirectoryChannels;
    private final AtomicInteger refusedDirectoryChannels = new AtomicInteger();
    private volatile Predicate<Path> writesRefused = path -> false;
    private volatile String writeRefusal = "";
    private final AtomicInteger refusedWrites = new AtomicInteger();
    final AtomicInteger forces = new AtomicInteger();
    final AtomicInteger flushesWithoutWriteAccess = new AtomicInteger();

    private FaultyFileSystem(FileSystem delegate) {
        this.delegate = delegate;
        this.provider = new FaultyFileSystemProvider(this, delegate.provider());
    }

    public static FaultyFileSystem over(FileSystem delegate) {
        return new FaultyFileSystem(delegate);
    }

    /** The same file as one of this file system's paths. */
    public Path wrap(Path path) {
        return path instanceof FaultyPath ? path : new FaultyPath(this, path);
    }

    /**
     * Each file matching {@code file} is held open by another process (as antivirus scans each new file) for its first
     * {@code times} renames or deletes: they meet a sharing violation.
     */
    public FaultyFileSystem holdOpen(Predicate<Path> file, int times) {
        holding.clear();
        holds = times;
        heldOpen = file;
        return this;
    }

    public FaultyFileSystem refuseDirectoryChannels() {
        refuseDirectoryChannels = true;
        return this;
    }

    /** Until {@link #allowWrites}: creating, writing, renaming or deleting a file under {@code where} fails. */
    public FaultyFileSystem refuseWritesUnder(Path where, String reason) {
        Path under = unwrap(where).toAbsolutePath();
        return refuseWrites(path -> unwrap(path).toAbsolutePath().startsWith(under), reason);
    }

    /** Until {@link #allowWrites}: creating, writing, renaming or deleting a file that {@code where} accepts fails. */
    public FaultyFileSystem refuseWrites(Predicate<Path> where, String reason) {
        writeRefusal = reason;
        writesRefused = where;
        return this;
    }

    /** The next write that {@code where} accepts fails (a disk full for a moment); later ones work. */
    public FaultyFileSystem refuseNextWrite(Predicate<Path> where, String reason) {
        java.util.concurrent.atomic.AtomicBoolean refused = new java.util.concurrent.atomic.AtomicBoolean();
        return refuseWrites(path -> where.test(path) && refused.compareAndSet(false, true), reason);
    }

    public FaultyFileSystem allowWrites() {
        writesRefused = path -> false;
        return this;
    }

    public int sharingViolations() {
        return sharingViolations.get();
    }

    public int refusedDirectoryChannels() {
        return refusedDirectoryChannels.get();
    }

    public int refusedWrites() {
        return refusedWrites.get();
    }

    /** Forces of a file's channel. */
    public int forces() {
        return forces.get();
    }

    /** Forces on a channel without write access: a flush that Windows would have skipped. */
    public int flushesWithoutWriteAccess() {
        return flushesWithoutWriteAccess.get();
    }

    static Path unwrap(Path path) {
        return path instanceof FaultyPath faulty ? faulty.delegate() : path;
    }

    void checkSharing(Path path) throws FileSystemException {
        if (heldOpen.test(path) && holding.computeIfAbsent(unwrap(path).toAbsolutePath(), p -> new AtomicInteger(holds))
                .getAndUpdate(n -> Math.max(n - 1, 0)) > 0) {
            throw sharingViolations.incrementAndGet() % 2 == 1 ? new AccessDeniedException(path.toString())
                    : new FileSystemException(path.toString(), null, SHARING_VIOLATION);
        }
    }

    void checkWrite(Path path) throws FileSystemException {
        if (writesRefused.test(path)) {
            refusedWrites.incrementAndGet();
            throw new FileSystemException(path.toString(), null, writeRefusal);
        }
    }

    void checkDirectoryChannel(Path path, boolean directory) throws AccessDeniedException {
        if (refuseDirectoryChannels && directory) {
            refusedDirectoryChannels.incrementAndGet();
            throw new AccessDeniedException(path.toString());
        }
    }

    @Override
    public FileSystemProvider provider() {
        return provider;
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }

    @Override
    public boolean isOpen() {
        return delegate.isOpen();
    }

    @Override
    public boolean isReadOnly() {
        return delegate.isReadOnly();
    }

    @Override
    public String getSeparator() {
        return delegate.getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        return StreamSupport.stream(delegate.getRootDirectories().spliterator(), false).map(this::wrap).toList();
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return delegate.getFileStores();
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return delegate.supportedFileAttributeViews().stream().collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public Path getPath(String first, String... more) {
        return wrap(delegate.getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        PathMatcher matcher = delegate.getPathMatcher(syntaxAndPattern);
        return path -> matcher.matches(unwrap(path));
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return delegate.getUserPrincipalLookupService();
    }

    @Override
    public WatchService newWatchService() throws IOException {
        throw new UnsupportedOperationException("not watched in tests");
    }
}
