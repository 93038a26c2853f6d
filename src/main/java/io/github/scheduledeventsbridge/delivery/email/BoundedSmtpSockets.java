package io.github.scheduledeventsbridge.delivery.email;

import io.github.scheduledeventsbridge.delivery.AttemptDeadlines;
import io.github.scheduledeventsbridge.delivery.BoundedReads;

import javax.net.SocketFactory;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;

/**
 * The SMTP connection's socket (JavaMail's {@code mail.smtp.socketFactory}): what the server sends is bounded.
 * Angus Mail reads a reply line, and the lines of a reply, without a limit, so a server (or anyone on the path
 * before STARTTLS) greeting with hundreds of megabytes would exhaust the heap. Here:
 * <ul>
 *   <li>at most {@value #MAX_REPLY_BYTES} bytes may arrive between two things the agent sends (a reply and all its
 *       lines, or a TLS handshake flight: after STARTTLS the TLS layer reads through this socket too); more closes
 *       the connection, a failed attempt;</li>
 *   <li>no read waits past the attempt's deadline ({@link AttemptDeadlines}): a server that answers a byte at a time
 *       still ends the attempt on time.</li>
 * </ul>
 */
final class BoundedSmtpSockets extends SocketFactory {

    static final int MAX_REPLY_BYTES = 64 * 1024;

    private final AttemptDeadlines deadlines;

    BoundedSmtpSockets(AttemptDeadlines deadlines) {
        this.deadlines = deadlines;
    }

    /** JavaMail asks for an unconnected socket and connects it itself (with its connection timeout). */
    @Override
    public Socket createSocket() throws IOException {
        return new BoundedSocket(deadlines);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return createSocket(address, port);
    }

    private Socket connected(java.net.InetSocketAddress address) throws IOException {
        Socket socket = createSocket();
        socket.connect(address);
        return socket;
    }

    /** A plain socket whose reads are bounded in bytes per reply and in time. */
    private static final class BoundedSocket extends Socket {
        private final AttemptDeadlines.Attempt attempt;
        private volatile int readTimeout;
        private volatile long sinceLastWrite;
        /** The current read waits until the attempt's deadline rather than the read timeout. */
        private volatile boolean deadlineBound;
        private volatile boolean reading;
        private InputStream in;
        private OutputStream out;

        BoundedSocket(AttemptDeadlines deadlines) throws IOException {
            // A read waiting for the server ends at the deadline by itself (its timeout is what is left), with a
            // timeout that says so; anything else (connecting, writing, a read when the agent stops) is cut off.
            this.attempt = deadlines.begin(() -> {
                if (!reading || deadlines.isStopping()) {
                    closeQuietly();
                }
            });
        }

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            readTimeout = timeout;
            super.setSoTimeout(timeout);
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in = new Replies(super.getInputStream());
            }
            return in;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                out = new Commands(super.getOutputStream());
            }
            return out;
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } finally {
                attempt.close();
            }
        }

        private void closeQuietly() {
            try {
                super.close();
            } catch (IOException ignored) {
                // closing is all that was wanted
            }
        }

        /** Before each read: the time left, and the reply's room. */
        private int allowed(int wanted) throws IOException {
            long left = attempt.remainingMillis();
            if (left == 0) {
                throw attempt.timedOut(null);
            }
            int timeout = (int) Math.min(Integer.MAX_VALUE, readTimeout > 0 ? Math.min(readTimeout, left) : left);
            deadlineBound = timeout == left;
            super.setSoTimeout(timeout);
            if (sinceLastWrite >= MAX_REPLY_BYTES) {
                closeQuietly();
                throw new IOException("the SMTP server sent more than " + MAX_REPLY_BYTES
                        + " bytes without waiting for the agent: not an SMTP reply; connection closed");
            }
            return (int) Math.min(wanted, MAX_REPLY_BYTES - sinceLastWrite);
        }

        private final class Replies extends BoundedReads {
            Replies(InputStream in) {
                super(in);
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                // One reader (the lane's thread); the deadline closes the socket from another without a lock.
                try {
                    int room = allowed(length);
                    reading = true;
                    int n = in.read(buffer, offset, room);
                    sinceLastWrite += Math.max(0, n);
                    return n;
                } catch (IOException e) {
                    throw ended(e);
                } finally {
                    reading = false;
                }
            }

            @Override
            public int available() throws IOException {
                try {
                    return in.available();
                } catch (IOException e) {
                    throw ended(e);
                }
            }
        }

        /** What a read cut short by the deadline (or the stop) throws: a timeout that says so. */
        private IOException ended(IOException e) {
            return attempt.expired() || e instanceof java.net.SocketTimeoutException && deadlineBound ? attempt.timedOut(e) : e;
        }

        private final class Commands extends FilterOutputStream {
            Commands(OutputStream out) {
                super(out);
            }

            @Override
            public void write(int b) throws IOException {
                sinceLastWrite = 0;
                out.write(b);
            }

            @Override
            public void write(byte[] buffer, int offset, int length) throws IOException {
                sinceLastWrite = 0;
                out.write(buffer, offset, length);
            }
        }
    }
}
