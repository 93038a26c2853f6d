package io.github.scheduledeventsbridge.delivery;

/** How a webhook target wants its messages: CloudEvents (default), or a chat tool's own format. */
public enum WebhookFormat { CLOUDEVENTS, SLACK, TEAMS }
