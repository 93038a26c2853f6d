package io.github.scheduledeventsbridge.logging;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a peer sent (an answer's body, an SMTP reply, an error quoting either) made fit for a log line or a dead-letter
 * reason: a receiver that echoes its request must not hand back its secrets. What is masked: docs/security.md.
 */
public final class Redaction {

    public static final String MASK = "***";
    private static final String UNPARSABLE = "<unparsable URL>";

    private static final Pattern SCHEME = Pattern.compile(
            "(?i)\\b(Basic|Bearer|Digest|Negotiate|SharedAccessSignature)\\s+[^\\s,;\"']+");
    private static final Pattern CREDENTIAL = Pattern.compile("(?i)([\"']?)((?<![A-Za-z0-9_-])(?:code|sig|auth|cookie"
            + "|set-cookie|session|sessionid|pwd|pass)|[A-Za-z0-9_-]*(?:key|token|secret|password|passwd|signature|"
            + "credentials?|authorization))\\1(\\s*[=:]\\s*)([\"']?)(?!\\*\\*\\*)[^\\s&\"',;}<>]+");
    private static final Pattern TOKEN = Pattern.compile("(?<![A-Za-z0-9+/_=.-])[A-Za-z0-9+/_=.-]{24,}(?![A-Za-z0-9+/_=.-])");
    private static final Pattern UUID = Pattern.compile("[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}");
    /** Configured secrets shorter than this are not searched for (they would match ordinary words). */
    private static final int SHORTEST_SECRET = 6;

    private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();

    private Redaction() {
    }

    /** A value this agent was configured with as a secret: never shown in what peers send back. */
    public static void secret(String value) {
        if (value != null && value.length() >= SHORTEST_SECRET) {
            SECRETS.add(value);
        }
    }

    /** A webhook URL's user information, query values and path segments of 16+ characters (Slack, Teams). */
    public static void secretsOf(URI url) {
        if (url.getRawUserInfo() != null) {
            secret(url.getRawUserInfo());
            secret(url.getUserInfo());
            secret(url.getUserInfo().substring(url.getUserInfo().indexOf(':') + 1)); // the password
        }
        if (url.getRawQuery() != null) {
            for (String parameter : url.getRawQuery().split("&")) {
                String value = parameter.substring(parameter.indexOf('=') + 1);
                secret(value);
                secret(URLDecoder.decode(value, StandardCharsets.UTF_8));
            }
        }
        if (url.getRawPath() != null) {
            Arrays.stream(url.getRawPath().split("/")).filter(segment -> segment.length() >= 16).forEach(Redaction::secret);
        }
    }

    /** Error messages and replies that may quote a peer (an SMTP reply, an exception around an answer). */
    public static String peerText(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = SCHEME.matcher(redactUrlsIn(knownSecrets(text))).replaceAll("$1 " + MASK);
        return CREDENTIAL.matcher(out).replaceAll("$1$2$1$3$4" + MASK);
    }

    /** A webhook answer's body: as {@link #peerText}, and token-like runs too. */
    public static String answerBody(String text) {
        String out = peerText(text);
        return out == null ? null : TOKEN.matcher(out).replaceAll(m -> tokenLike(m.group()) ? MASK : m.group());
    }

    private static boolean tokenLike(String run) {
        return !UUID.matcher(run).matches() && run.chars().anyMatch(Character::isDigit)
                && run.chars().anyMatch(Character::isLetter);
    }

    private static String knownSecrets(String text) {
        // Longest first: a secret that contains another is removed whole.
        return SECRETS.stream().sorted(Comparator.comparingInt(String::length).reversed())
                .reduce(text, (out, secret) -> out.replace(secret, MASK), (a, b) -> a);
    }

    private static final Pattern URL_IN_TEXT = Pattern.compile("https?://[^\\s\"'<>,;]+");

    /** Every URL in a text (an error message, a receiver's answer) reduced to its host, as {@link #redact} does. */
    public static String redactUrlsIn(String text) {
        return URL_IN_TEXT.matcher(text).replaceAll(m -> Matcher.quoteReplacement(redact(m.group())));
    }

    /** Webhook URLs often carry their secret in the path or query (Slack, Teams): log only the host. */
    public static String redact(String url) {
        try {
            URI uri = new URI(url);
            return uri.getHost() == null ? UNPARSABLE
                    : uri.getScheme() + "://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + "/…";
        } catch (URISyntaxException e) {
            return UNPARSABLE;
        }
    }
}
