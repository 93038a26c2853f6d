package io.github.scheduledeventsbridge.management;

import org.eclipse.jetty.io.Connection;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * At most {@code max} open connections on the management port: one more closes the oldest, as on the drain port,
 * so idle or slow clients can neither hold every file descriptor nor lock a probe or a scrape out. Accepting never
 * pauses (Jetty's NetworkConnectionLimit pauses it, and with 12.0.25 it did not always resume).
 */
final class OldestConnectionEviction implements Connection.Listener {

    private final int max;
    private final Set<Connection> open = new LinkedHashSet<>();

    OldestConnectionEviction(int max) {
        this.max = max;
    }

    @Override
    public void onOpened(Connection connection) {
        Connection oldest = null;
        synchronized (open) {
            open.add(connection);
            if (open.size() > max) {
                Iterator<Connection> first = open.iterator();
                oldest = first.next();
                first.remove();
            }
        }
        if (oldest != null) {
            oldest.getEndPoint().close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        synchronized (open) {
            open.remove(connection);
        }
    }

    int open() {
        synchronized (open) {
            return open.size();
        }
    }
}
