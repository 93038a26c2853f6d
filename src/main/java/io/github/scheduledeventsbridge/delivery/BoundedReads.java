package io.github.scheduledeventsbridge.delivery;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** A stream over what a peer sends whose every read, one byte included, goes through its bounded array read. */
public abstract class BoundedReads extends FilterInputStream {

    protected BoundedReads(InputStream in) {
        super(in);
    }

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] buffer, int offset, int length) throws IOException;
}
