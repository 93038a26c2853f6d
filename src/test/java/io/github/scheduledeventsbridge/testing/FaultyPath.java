package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Objects;

/** A path of a {@link FaultyFileSystem}: the wrapped file system's path, handed out again as one of ours. */
final class FaultyPath implements Path {

    private final FaultyFileSystem fileSystem;
    private final Path delegate;

    FaultyPath(FaultyFileSystem fileSystem, Path delegate) {
        this.fileSystem = fileSystem;
        this.delegate = delegate;
    }

    Path delegate() {
        return delegate;
    }

    private Path wrap(Path path) {
        return path == null ? null : new FaultyPath(fileSystem, path);
    }

    private static Path unwrap(Path path) {
        return path instanceof FaultyPath faulty ? faulty.delegate : path;
    }

    @Override
    public FaultyFileSystem getFileSystem() {
        return fileSystem;
    }

    @Override
    public boolean isAbsolute() {
        return delegate.isAbsolute();
    }

    @Override
    public Path getRoot() {
        return wrap(delegate.getRoot());
    }

    @Override
    public Path getFileName() {
        return wrap(delegate.getFileName());
    }

    @Override
    public Path getParent() {
        return wrap(delegate.getParent());
    }

    @Override
    public int getNameCount() {
        return delegate.getNameCount();
    }

    @Override
    public Path getName(int index) {
        return wrap(delegate.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
        return wrap(delegate.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
        return delegate.startsWith(unwrap(other));
    }

    @Override
    public boolean endsWith(Path other) {
        return delegate.endsWith(unwrap(other));
    }

    @Override
    public Path normalize() {
        return wrap(delegate.normalize());
    }

    @Override
    public Path resolve(Path other) {
        return wrap(delegate.resolve(unwrap(other)));
    }

    @Override
    public Path relativize(Path other) {
        return wrap(delegate.relativize(unwrap(other)));
    }

    @Override
    public URI toUri() {
        return delegate.toUri();
    }

    @Override
    public Path toAbsolutePath() {
        return wrap(delegate.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
        return wrap(delegate.toRealPath(options));
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
        throw new UnsupportedOperationException("not watched in tests");
    }

    @Override
    public int compareTo(Path other) {
        return delegate.compareTo(unwrap(other));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FaultyPath path && path.fileSystem == fileSystem && path.delegate.equals(delegate);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fileSystem, delegate);
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
