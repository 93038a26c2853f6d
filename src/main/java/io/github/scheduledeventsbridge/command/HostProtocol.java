package io.github.scheduledeventsbridge.command;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent and an action host (actionhost.ActionHost) speak over one connection in frames: a type byte, a 4-byte
 * length, the payload.
 * The agent sends one request ({@code Q}) and then only listens; closing the connection means it gave up. The host
 * answers with {@code S} (pid), {@code L} (an output line), {@code D} (output dropped) and finally {@code E} (the
 * outcome). Internal to this product: both ends always come from the same jar.
 */
public final class HostProtocol {

    public static final int VERSION = 1;
    public static final byte REQUEST = 'Q';
    public static final byte STARTED = 'S';
    public static final byte LINE = 'L';
    public static final byte DROPPED = 'D';
    public static final byte END = 'E';

    /** A request carries the CloudEvent (bounded by the IMDS document size the agent accepts) and the command. */
    public static final int MAX_REQUEST = 16 * 1024 * 1024;
    /** Every answer frame is small: a line is at most {@link OutputLimiter#MAX_LINE_BYTES} plus a short note. */
    public static final int MAX_ANSWER = 64 * 1024;
    private static final int MAX_ITEMS = 256;

    public record Frame(byte type, byte[] payload) {
        public DataInputStream data() {
            return new DataInputStream(new java.io.ByteArrayInputStream(payload));
        }
    }

    private HostProtocol() {
    }

    public static void writeRequest(OutputStream out, CommandSpec spec) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(bytes);
        data.writeInt(VERSION);
        data.writeLong(spec.timeout().toMillis());
        writeString(data, spec.label());
        data.writeInt(spec.argv().size());
        for (String word : spec.argv()) {
            writeString(data, word);
        }
        data.writeInt(spec.environment().size());
        for (Map.Entry<String, String> e : spec.environment().entrySet()) {
            writeString(data, e.getKey());
            writeString(data, e.getValue());
        }
        data.writeInt(spec.stdin().length);
        data.write(spec.stdin());
        writeFrame(out, REQUEST, bytes.toByteArray());
    }

    /** The request, checked: a version this host speaks, a program, SEB_* variables only, a positive timeout. */
    public static CommandSpec readRequest(InputStream in) throws IOException {
        Frame frame = readFrame(in, MAX_REQUEST);
        if (frame == null || frame.type() != REQUEST) {
            throw new IOException("expected a request");
        }
        DataInputStream data = frame.data();
        int version = data.readInt();
        if (version != VERSION) {
            throw new IOException("protocol version " + version + " (this host speaks " + VERSION + ")");
        }
        long timeout = data.readLong();
        String label = readString(data);
        List<String> argv = new ArrayList<>();
        for (int i = count(data); i > 0; i--) {
            argv.add(readString(data));
        }
        Map<String, String> environment = new LinkedHashMap<>();
        for (int i = count(data); i > 0; i--) {
            String key = readString(data);
            String value = readString(data);
            if (!key.matches("SEB_[A-Z0-9_]{1,64}")) {
                throw new IOException("environment variable " + key + " refused (only SEB_* are passed)");
            }
            environment.put(key, value);
        }
        int length = data.readInt();
        if (length < 0 || length > data.available()) {
            throw new IOException("bad input length");
        }
        byte[] stdin = data.readNBytes(length);
        if (argv.isEmpty() || timeout <= 0) {
            throw new IOException("a request needs a program and a positive timeout");
        }
        return new CommandSpec(argv, environment, stdin, Duration.ofMillis(timeout), label);
    }

    public static void writeEnd(OutputStream out, CommandResult result) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(bytes);
        writeString(data, result.outcome());
        data.writeInt(result.exitCode() == null ? -1 : result.exitCode());
        data.writeLong(result.took().toMillis());
        writeString(data, result.failure() == null ? "" : result.failure());
        writeFrame(out, END, bytes.toByteArray());
    }

    public static CommandResult readEnd(Frame frame) throws IOException {
        DataInputStream data = frame.data();
        String outcome = readString(data);
        if (!List.of(CommandResult.SUCCEEDED, CommandResult.FAILED, CommandResult.TIMED_OUT).contains(outcome)) {
            throw new IOException("unknown outcome from the action host");
        }
        int exit = data.readInt();
        long took = data.readLong();
        String failure = readString(data);
        return new CommandResult(outcome, exit < 0 ? null : exit, Duration.ofMillis(Math.max(0, took)),
                failure.isEmpty() ? null : failure);
    }

    public static void writeFrame(OutputStream out, byte type, byte[] payload) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeByte(type);
        data.writeInt(payload.length);
        data.write(payload);
        data.flush();
    }

    /** The next frame, or null at a clean end of stream (between frames). */
    public static Frame readFrame(InputStream in, int maxLength) throws IOException {
        int type = in.read();
        if (type < 0) {
            return null;
        }
        DataInputStream data = new DataInputStream(in);
        int length = data.readInt();
        if (length < 0 || length > maxLength) {
            throw new IOException("frame of " + length + " bytes refused (at most " + maxLength + ")");
        }
        byte[] payload = data.readNBytes(length);
        if (payload.length != length) {
            throw new EOFException("connection closed inside a frame");
        }
        return new Frame((byte) type, payload);
    }

    public static byte[] longs(long... values) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(bytes);
        for (long v : values) {
            data.writeLong(v);
        }
        return bytes.toByteArray();
    }

    private static int count(DataInputStream data) throws IOException {
        int n = data.readInt();
        if (n < 0 || n > MAX_ITEMS) {
            throw new IOException("a list of " + n + " items refused");
        }
        return n;
    }

    private static void writeString(DataOutputStream data, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        data.writeInt(bytes.length);
        data.write(bytes);
    }

    private static String readString(DataInputStream data) throws IOException {
        int length = data.readInt();
        if (length < 0 || length > data.available()) {
            throw new IOException("bad string length");
        }
        return new String(data.readNBytes(length), StandardCharsets.UTF_8);
    }
}
