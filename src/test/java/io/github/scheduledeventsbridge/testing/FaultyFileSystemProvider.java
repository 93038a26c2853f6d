package io.github.scheduledeventsbridge.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import static io.github.scheduledeventsbridge.testing.FaultyFileSystem.unwrap;

/** Hands every call to the wrapped file system's provider, after {@link FaultyFileSystem}'s faults had their say. */
final class FaultyFileSystemProvider extends FileSystemProvider {

    private final FaultyFileSystem fileSystem;
    private final FileSystemProvider delegate;

    FaultyFileSystemProvider(FaultyFileSystem fileSystem, FileSystemProvider delegate) {
        this.fileSystem = fileSystem;
        this.delegate = delegate;
    }

    @Override
    public String getScheme() {
        return "faulty";
    }

    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
        throw new UnsupportedOperationException();
    }

    @Override
    public FileSystem getFileSystem(URI uri) {
        return fileSystem;
    }

    @Override
    public Path getPath(URI uri) {
        return fileSystem.wrap(Path.of(uri));
    }

    private static boolean writes(Set<? extends OpenOption> options) {
        return options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
    }

    private void checkOpen(Path path, Set<? extends OpenOption> options) throws IOException {
        fileSystem.checkDirectoryChannel(path, Files.isDirectory(unwrap(path)));
        if (writes(options)) {
            fileSystem.checkWrite(path);
        }
    }

    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        checkOpen(path, options);
        return delegate.newByteChannel(unwrap(path), options, attrs);
    }

    @Override
    public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        checkOpen(path, options);
        return new ForceRecordingChannel(delegate.newFileChannel(unwrap(path), options, attrs), writes(options),
                fileSystem.forces, fileSystem.flushesWithoutWriteAccess);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter) throws IOException {
        DirectoryStream<Path> entries = delegate.newDirectoryStream(unwrap(dir), entry -> filter.accept(fileSystem.wrap(entry)));
        return new DirectoryStream<>() {
            @Override
            public Iterator<Path> iterator() {
                Iterator<Path> inner = entries.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return inner.hasNext();
                    }

                    @Override
                    public Path next() {
                        return fileSystem.wrap(inner.next());
                    }
                };
            }

            @Override
            public void close() throws IOException {
                entries.close();
            }
        };
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        fileSystem.checkWrite(dir);
        delegate.createDirectory(unwrap(dir), attrs);
    }

    @Override
    public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs) throws IOException {
        delegate.createSymbolicLink(unwrap(link), unwrap(target), attrs);
    }

    @Override
    public Path readSymbolicLink(Path link) throws IOException {
        return fileSystem.wrap(delegate.readSymbolicLink(unwrap(link)));
    }

    @Override
    public void delete(Path path) throws IOException {
        fileSystem.checkWrite(path);
        fileSystem.checkSharing(path);
        delegate.delete(unwrap(path));
    }

    @Override
    public boolean deleteIfExists(Path path) throws IOException {
        fileSystem.checkWrite(path);
        fileSystem.checkSharing(path);
        return delegate.deleteIfExists(unwrap(path));
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        fileSystem.checkWrite(target);
        delegate.copy(unwrap(source), unwrap(target), options);
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        fileSystem.checkWrite(source);
        fileSystem.checkSharing(source);
        fileSystem.checkSharing(target);
        delegate.move(unwrap(source), unwrap(target), options);
    }

    @Override
    public boolean isSameFile(Path path, Path other) throws IOException {
        return delegate.isSameFile(unwrap(path), unwrap(other));
    }

    @Override
    public boolean isHidden(Path path) throws IOException {
        return delegate.isHidden(unwrap(path));
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
        return delegate.getFileStore(unwrap(path));
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        delegate.checkAccess(unwrap(path), modes);
    }

    @Override
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
        return delegate.getFileAttributeView(unwrap(path), type, options);
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        return delegate.readAttributes(unwrap(path), type, options);
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
        return delegate.readAttributes(unwrap(path), attributes, options);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
        delegate.setAttribute(unwrap(path), attribute, value, options);
    }
}
