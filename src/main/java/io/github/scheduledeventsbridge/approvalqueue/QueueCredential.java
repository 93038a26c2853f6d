package io.github.scheduledeventsbridge.approvalqueue;

import io.github.scheduledeventsbridge.identity.ManagedIdentityTokens;
import io.github.scheduledeventsbridge.identity.TokenUnavailableException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a request to the queue is authorized: the VM's managed identity (a bearer token for Azure Storage, asked of
 * IMDS by the agent), or a storage account key from a connection string (Shared Key), or the shared access
 * signature a connection string may carry instead.
 */
public sealed interface QueueCredential {

    /** The resource a storage token is asked for. */
    String STORAGE_RESOURCE = "https://storage.azure.com/";

    /** The Authorization header for this request, or null (a SAS travels in the query). */
    String authorization(String method, URI uri, Map<String, String> msHeaders, long contentLength, String contentType)
            throws TokenUnavailableException;

    /** Query parameters to add to every request (a SAS), or "". */
    default String query() {
        return "";
    }

    /** The VM's identity: system-assigned ({@code clientId} empty) or user-assigned. */
    record ManagedIdentity(ManagedIdentityTokens tokens, String clientId) implements QueueCredential {
        @Override
        public String authorization(String method, URI uri, Map<String, String> msHeaders, long contentLength,
                                    String contentType) throws TokenUnavailableException {
            return tokens.token(STORAGE_RESOURCE, clientId).authorization();
        }

        @Override
        public String toString() {
            return clientId.isEmpty() ? "the system-assigned managed identity" : "the managed identity " + clientId;
        }
    }

    /** Shared Key (docs: "Authorize with Shared Key"), for the queue service, version 2015-02-21 and later. */
    record SharedKey(String account, byte[] key) implements QueueCredential {
        @Override
        public String authorization(String method, URI uri, Map<String, String> msHeaders, long contentLength,
                                    String contentType) {
            StringBuilder text = new StringBuilder(method).append('\n')
                    .append('\n') // Content-Encoding
                    .append('\n') // Content-Language
                    .append(contentLength > 0 ? String.valueOf(contentLength) : "").append('\n')
                    .append('\n') // Content-MD5
                    .append(contentType == null ? "" : contentType).append('\n')
                    .append("\n\n\n\n\n\n"); // Date (x-ms-date is sent), If-*, Range
            new TreeMap<>(lowerCase(msHeaders)).forEach((name, value) -> text.append(name).append(':').append(value.trim()).append('\n'));
            text.append('/').append(account).append(uri.getRawPath());
            TreeMap<String, String> query = new TreeMap<>();
            if (uri.getRawQuery() != null) {
                for (String parameter : uri.getRawQuery().split("&")) {
                    int eq = parameter.indexOf('=');
                    String name = URLDecoder.decode(eq < 0 ? parameter : parameter.substring(0, eq), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
                    String value = eq < 0 ? "" : URLDecoder.decode(parameter.substring(eq + 1), StandardCharsets.UTF_8);
                    query.merge(name, value, (a, b) -> a + "," + b);
                }
            }
            query.forEach((name, value) -> text.append('\n').append(name).append(':').append(value));
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
                return "SharedKey " + account + ":" + Base64.getEncoder().encodeToString(mac.doFinal(text.toString().getBytes(StandardCharsets.UTF_8)));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        private static Map<String, String> lowerCase(Map<String, String> headers) {
            Map<String, String> lower = new TreeMap<>();
            headers.forEach((name, value) -> lower.put(name.toLowerCase(Locale.ROOT), value));
            return lower;
        }

        @Override
        public String toString() {
            return "the account key of " + account + " (connection string)";
        }
    }

    /** A connection string's SharedAccessSignature: sent as the query, no header. */
    record SharedAccessSignature(String sas) implements QueueCredential {
        @Override
        public String authorization(String method, URI uri, Map<String, String> msHeaders, long contentLength,
                                    String contentType) {
            return null;
        }

        @Override
        public String query() {
            return sas.startsWith("?") ? sas.substring(1) : sas;
        }

        @Override
        public String toString() {
            return "a shared access signature (connection string)";
        }
    }
}
