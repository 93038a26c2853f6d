package io.github.scheduledeventsbridge.testing;

import io.github.scheduledeventsbridge.approvalqueue.QueueCredential;
import io.github.scheduledeventsbridge.http.BoundedExchange;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * Azurite's queue service (npm {@code azurite}, installed by bin/install-prerequisites) on loopback, on a port of
 * {@link FreePorts}, its data in a directory of the test. {@link #https} serves it over TLS with a certificate made
 * here and {@code --oauth basic} (bearer tokens checked for their claims only); {@link #tls()} trusts that
 * certificate and nothing else, for one client, never the JVM.
 */
public final class Azurite implements AutoCloseable {

    public static final String ACCOUNT = "devstoreaccount1";
    /** Azurite's well-known development key (its README): not a secret. */
    public static final String KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private final Process process;
    private final int port;
    private final boolean https;
    private final SSLContext tls;
    private final Path log;

    private Azurite(Process process, int port, boolean https, SSLContext tls, Path log) {
        this.process = process;
        this.port = port;
        this.https = https;
        this.tls = tls;
        this.log = log;
    }

    public static Azurite http(Path dir) throws Exception {
        return start(dir, false);
    }

    public static Azurite https(Path dir) throws Exception {
        return start(dir, true);
    }

    private static Azurite start(Path dir, boolean https) throws Exception {
        Files.createDirectories(dir);
        int port = FreePorts.unused();
        List<String> command = new ArrayList<>(List.of("azurite-queue", "--queueHost", "127.0.0.1", "--queuePort",
                String.valueOf(port), "--location", dir.resolve("data").toString(), "--skipApiVersionCheck",
                "--disableProductStyleUrl", "--loose", "--silent"));
        SSLContext tls = null;
        if (https) {
            Path key = dir.resolve("key.pem");
            Path cert = dir.resolve("cert.pem");
            Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    key.toString(), "-out", cert.toString(), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost").redirectErrorStream(true)
                    .redirectOutput(dir.resolve("openssl.log").toFile()).start();
            if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                throw new IOException("openssl could not make a certificate: " + Files.readString(dir.resolve("openssl.log")));
            }
            command.addAll(List.of("--cert", cert.toString(), "--key", key.toString(), "--oauth", "basic"));
            tls = trusting(cert);
        }
        Path log = dir.resolve("azurite.log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Azurite azurite = new Azurite(process, port, https, tls, log);
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("azurite-queue ended: " + Files.readString(log));
                }
                try (Socket ignored = new Socket("127.0.0.1", port)) {
                    return true;
                } catch (IOException notYet) {
                    return false;
                }
            });
        } catch (RuntimeException e) {
            azurite.close();
            throw e;
        }
        return azurite;
    }

    /** An SSLContext that trusts {@code certificate} alone. */
    public static SSLContext trusting(Path certificate) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(certificate)) {
            trust.setCertificateEntry("azurite", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    /** The TLS context that trusts this Azurite's certificate (null over plain HTTP). */
    public SSLContext tls() {
        return tls;
    }

    public Path certificate() {
        return log.resolveSibling("cert.pem");
    }

    public int port() {
        return port;
    }

    public URI queueUrl(String queue) {
        return URI.create((https ? "https" : "http") + "://127.0.0.1:" + port + "/" + ACCOUNT + "/" + queue);
    }

    public String connectionString() {
        return "DefaultEndpointsProtocol=" + (https ? "https" : "http") + ";AccountName=" + ACCOUNT + ";AccountKey="
                + KEY + ";QueueEndpoint=" + (https ? "https" : "http") + "://127.0.0.1:" + port + "/" + ACCOUNT + ";";
    }

    public QueueCredential.SharedKey sharedKey() {
        return new QueueCredential.SharedKey(ACCOUNT, Base64.getDecoder().decode(KEY));
    }

    /** Creates {@code queue} with the account key. */
    public URI create(String queue) throws IOException {
        URI url = queueUrl(queue);
        Map<String, String> ms = new LinkedHashMap<>();
        ms.put("x-ms-date", DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC).format(Instant.now()));
        ms.put("x-ms-version", "2021-12-02");
        HttpRequest.Builder request = HttpRequest.newBuilder(url).PUT(HttpRequest.BodyPublishers.noBody());
        ms.forEach(request::header);
        request.header("Authorization", sharedKey().authorization("PUT", url, ms, 0, null));
        BoundedExchange.Answer answer = new BoundedExchange(BoundedExchange.client(tls, Duration.ofSeconds(10)))
                .send(request.build(), 64 * 1024, Duration.ofSeconds(30));
        if (answer.status() != 201 && answer.status() != 204) {
            throw new IOException("cannot create queue " + queue + ": HTTP " + answer.status() + " " + answer.text());
        }
        return url;
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
