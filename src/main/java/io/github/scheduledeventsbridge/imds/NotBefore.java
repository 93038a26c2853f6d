package io.github.scheduledeventsbridge.imds;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * IMDS sends NotBefore as RFC 1123 ("Mon, 11 Apr 2022 22:26:58 GMT"), Microsoft's mock server as ISO-8601,
 * and both send an empty string once the event has started. Anything else is treated as unknown (null),
 * never as an error: a odd timestamp must not make a whole document unreadable.
 */
public final class NotBefore {

    private static final DateTimeFormatter DAY_MONTH_YEAR =
            DateTimeFormatter.ofPattern("d MMM yyyy HH:mm:ss zzz", java.util.Locale.ROOT);

    private NotBefore() {
    }

    public static Instant parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String value = text.trim();
        try {
            return OffsetDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException notRfc1123) {
            // fall through: maybe a wrong weekday, which must not lose the date
        }
        int comma = value.indexOf(',');
        if (comma > 0 && comma < 5) {
            try {
                return OffsetDateTime.parse(value.substring(comma + 1).trim(), DAY_MONTH_YEAR).toInstant();
            } catch (DateTimeParseException notRfc1123WithoutWeekday) {
                // fall through to ISO-8601
            }
        }
        try {
            return OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeParseException notOffset) {
            // fall through: ISO without zone is UTC on IMDS
        }
        try {
            return LocalDateTime.parse(value, DateTimeFormatter.ISO_LOCAL_DATE_TIME).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException unknown) {
            return null;
        }
    }

    /** ISO-8601 UTC as the CloudEvent carries it, or null. */
    public static String toIso(Instant instant) {
        return instant == null ? null : DateTimeFormatter.ISO_INSTANT.format(instant);
    }
}
