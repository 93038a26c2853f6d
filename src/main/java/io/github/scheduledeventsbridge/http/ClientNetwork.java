package io.github.scheduledeventsbridge.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;

/**
 * The network a client address belongs to, the unit of fairness on every port and of the management login budgets:
 * an IPv4 /24, an IPv6 /64, and all of loopback as one (any local process can pick any 127.x.y.z).
 */
public final class ClientNetwork {

    private ClientNetwork() {
    }

    /** The network of an address literal; anything else (not an address) stands on its own. */
    public static String of(String address) {
        if (address == null || address.isEmpty()
                || !address.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':' || c == '%')) {
            return String.valueOf(address);
        }
        try {
            InetAddress parsed = InetAddress.getByName(address); // a literal: no name lookup
            if (parsed.isLoopbackAddress()) {
                return "loopback";
            }
            byte[] bytes = parsed.getAddress();
            return bytes.length == 4 ? (bytes[0] & 255) + "." + (bytes[1] & 255) + "." + (bytes[2] & 255) + ".0/24"
                    : HexFormat.of().formatHex(bytes, 0, 8) + "/64";
        } catch (UnknownHostException e) {
            return address;
        }
    }
}
