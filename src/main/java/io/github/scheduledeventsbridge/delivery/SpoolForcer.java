package io.github.scheduledeventsbridge.delivery;

import io.github.scheduledeventsbridge.storage.AtomicFiles;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Forces spool files to disk, then their directories (their names), on a few fsync threads when there are many
 * (a thread mostly waits for the disk, and waiting fsyncs share the disk's flushes). A file a lane has delivered
 * (deleted) or moved meanwhile needs nothing more. Returns when all are done, or with the first failure once no
 * fsync thread is working on them any more.
 */
final class SpoolForcer {

    static final int FORCERS = 8;
    private java.util.concurrent.ExecutorService forcerPool;

    void force(List<Path> files) throws IOException {
        IOException failure = null;
        if (files.size() <= 2) {
            for (Path file : files) {
                forceUnlessGone(file);
            }
        } else {
            List<java.util.concurrent.Future<?>> forced = new java.util.ArrayList<>();
            for (Path file : files) {
                forced.add(forcerPool().submit(() -> {
                    forceUnlessGone(file);
                    return null;
                }));
            }
            failure = awaitAll(forced);
        }
        if (failure != null) {
            throw failure;
        }
        for (Path dir : files.stream().map(Path::getParent).distinct().toList()) {
            AtomicFiles.force(dir);
        }
    }

    private static void forceUnlessGone(Path file) throws IOException {
        try {
            AtomicFiles.force(file);
        } catch (NoSuchFileException delivered) {
            // Deleted by its lane (delivered) or moved to dead-letter/ (which forces it there).
        }
    }

    private static IOException awaitAll(List<java.util.concurrent.Future<?>> futures) {
        IOException failure = null;
        boolean interrupted = false;
        for (java.util.concurrent.Future<?> future : futures) {
            while (true) {
                try {
                    future.get();
                    break;
                } catch (java.util.concurrent.ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                    }
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return failure;
    }


    /** A few daemon threads, created on the first big document only: idle agents do not pay for them. */
    private synchronized java.util.concurrent.ExecutorService forcerPool() {
        if (forcerPool == null) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            forcerPool = java.util.concurrent.Executors.newFixedThreadPool(FORCERS, r -> {
                Thread t = new Thread(r, "spool-fsync-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return forcerPool;
    }
}
