package io.github.scheduledeventsbridge.testing;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;

/** A PKCS12 keystore with one self-signed RSA key for localhost and 127.0.0.1, made by the JDK's keytool. */
public record SelfSignedKeystore(Path file, String password, KeyStore keys) {

    public static SelfSignedKeystore create(Path file, String alias) throws Exception {
        String password = "changeit";
        Files.deleteIfExists(file); // keytool adds to a keystore that exists, and refuses an alias it holds
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", file.toString(), "-storepass", password, "-keypass", password)
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new AssertionError("keytool failed: " + output);
        }
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            keys.load(in, password.toCharArray());
        }
        return new SelfSignedKeystore(file, password, keys);
    }

    /** TLS that presents this key (a server). */
    public SSLContext serving() throws Exception {
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, password.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keyManagers.getKeyManagers(), null, null);
        return tls;
    }

    /** TLS that trusts this key's certificate (a client). */
    public SSLContext trusting() throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keys);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        return tls;
    }
}
