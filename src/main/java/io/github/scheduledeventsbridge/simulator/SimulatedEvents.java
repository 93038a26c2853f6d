package io.github.scheduledeventsbridge.simulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The simulated Scheduled Events document of one VM.
 *
 * <p>There is no thread behind it: every observation first replays, in chronological order, every step
 * (appearance, start, completion, cancellation) that has fallen due since the previous observation, so an
 * idle simulator costs nothing. Catching up after a long idle period replays each missed step, a few
 * thousand per idle day at the default speed, which takes milliseconds.
 *
 * <p>DocumentIncarnation is coalesced per observation: it goes up by exactly 1 when the Events served now
 * differ from the Events served by the previous observation, however many steps happened in between, and
 * stays put otherwise. Clients therefore see a new incarnation exactly when the content changed.
 */
final class SimulatedEvents {

    /** Scenario k appears k × 20 simulated minutes after the origin, plus a small delay for the first one. */
    private static final long SCENARIO_SPACING_SECONDS = 20 * 60;
    private static final long FIRST_SCENARIO_DELAY_SECONDS = 5;
    private static final DateTimeFormatter RFC1123 =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    private static final ObjectMapper JSON = io.github.scheduledeventsbridge.json.Json.MAPPER;

    private final Clock clock;
    private final double speed;
    private final String vmName;
    private final List<Scenario> scenarios;
    private final boolean loop;
    /** When the scenarios' time starts: at construction, or (null until then) at the first observation. */
    private Instant origin;

    /** Current events in order of appearance, which is also the order served. */
    private final List<Event> events = new ArrayList<>();
    /** Scenarios that have appeared so far, counted across loops; picks the next one and its time. */
    private long appeared;
    private long incarnation = 1;
    private String eventsJson = "[]";

    SimulatedEvents(Clock clock, double speed, String vmName, List<Scenario> scenarios, boolean loop,
                    boolean fromFirstRequest) {
        this.clock = clock;
        this.speed = speed;
        this.vmName = vmName;
        this.scenarios = List.copyOf(scenarios);
        this.loop = loop;
        this.origin = fromFirstRequest ? null : clock.instant();
    }

    /** The document as IMDS would serve it now. */
    synchronized String document() {
        advanceTo(clock.instant());
        commit();
        return "{\"DocumentIncarnation\":" + incarnation + ",\"Events\":" + eventsJson + "}";
    }

    synchronized long incarnation() {
        document();
        return incarnation;
    }

    /**
     * Starts the Scheduled events among {@code eventIds} now, as a POST of StartRequests does.
     *
     * @return false, changing nothing, when any id is not a current event (compared case-insensitively)
     */
    synchronized boolean approve(List<String> eventIds) {
        Instant now = clock.instant();
        advanceTo(now);
        boolean allKnown = eventIds.stream().allMatch(id -> find(id).isPresent());
        if (allKnown) {
            eventIds.forEach(id -> find(id).filter(event -> !event.isStarted()).ifPresent(event -> start(event, now)));
        }
        commit();
        return allKnown;
    }

    private Optional<Event> find(String eventId) {
        return events.stream().filter(event -> event.id.equalsIgnoreCase(eventId)).findFirst();
    }

    /** Applies every due step up to {@code now}, earliest first, so overlapping scenarios interleave correctly. */
    private void advanceTo(Instant now) {
        if (origin == null) {
            origin = now;
        }
        while (true) {
            Instant nextAppearance = nextAppearance();
            Optional<Event> nextEvent = events.stream().min(Comparator.comparing(event -> event.dueAt));
            Instant nextEventDue = nextEvent.map(event -> event.dueAt).orElse(Instant.MAX);
            if (nextAppearance.isAfter(now) && nextEventDue.isAfter(now)) {
                return;
            }
            if (nextAppearance.isAfter(nextEventDue)) {
                fire(nextEvent.orElseThrow());
            } else {
                appear(nextAppearance);
            }
        }
    }

    private Instant nextAppearance() {
        if (!loop && appeared >= scenarios.size()) {
            return Instant.MAX;
        }
        return origin.plus(real(appeared * SCENARIO_SPACING_SECONDS + FIRST_SCENARIO_DELAY_SECONDS));
    }

    private void appear(Instant at) {
        Scenario scenario = scenarios.get((int) (appeared % scenarios.size()));
        appeared++;
        // Every appearance, including each loop's, gets a fresh id, as a real new event would.
        Event event = new Event(UUID.randomUUID().toString().toUpperCase(Locale.ROOT), scenario);
        if (scenario.appearsStarted()) {
            start(event, at);
        } else {
            schedule(event, at);
        }
        events.add(event);
    }

    private void schedule(Event event, Instant at) {
        Scenario scenario = event.scenario;
        // RFC1123 has whole seconds only: round up and start exactly then, so the served NotBefore
        // is never in the past while the event is still Scheduled.
        event.notBefore = ceilToSecond(at.plus(real(scenario.noticeSeconds())));
        event.dueAt = scenario.cancels() ? at.plus(real(scenario.cancelAfterSeconds())) : event.notBefore;
    }

    private void start(Event event, Instant at) {
        event.notBefore = null;
        event.dueAt = at.plus(real(event.scenario.startedSeconds()));
    }

    /** A due Started event has completed; a due Scheduled one either starts or, for a cancelling scenario, is withdrawn. */
    private void fire(Event event) {
        if (event.isStarted() || event.scenario.cancels()) {
            events.remove(event);
        } else {
            start(event, event.dueAt);
        }
    }

    /** Bumps the incarnation if, and only if, the Events differ from the last ones served. */
    private void commit() {
        String current = renderEvents();
        if (!current.equals(eventsJson)) {
            eventsJson = current;
            incarnation++;
        }
    }

    private String renderEvents() {
        ArrayNode array = JSON.createArrayNode();
        events.forEach(event -> array.add(render(event)));
        return array.toString();
    }

    /** Field order follows the Azure documentation's sample. */
    private ObjectNode render(Event event) {
        Scenario scenario = event.scenario;
        ObjectNode node = JSON.createObjectNode();
        node.put("EventId", event.id);
        node.put("EventStatus", event.isStarted() ? "Started" : "Scheduled");
        node.put("EventType", scenario.eventType());
        node.put("ResourceType", "VirtualMachine");
        ArrayNode resources = node.putArray("Resources");
        scenario.resources().apply(vmName).forEach(resources::add);
        node.put("NotBefore", event.isStarted() ? "" : RFC1123.format(event.notBefore));
        node.put("Description", scenario.description());
        node.put("EventSource", scenario.eventSource());
        node.put("DurationInSeconds", scenario.durationInSeconds());
        return node;
    }

    private Duration real(long simulatedSeconds) {
        return Duration.ofNanos(Math.round(simulatedSeconds * 1e9 / speed));
    }

    private static Instant ceilToSecond(Instant instant) {
        Instant truncated = instant.truncatedTo(ChronoUnit.SECONDS);
        return truncated.equals(instant) ? truncated : truncated.plusSeconds(1);
    }

    private static final class Event {
        final String id;
        final Scenario scenario;
        /** Null once Started, which is exactly when IMDS serves an empty NotBefore. */
        Instant notBefore;
        /** When this event's next step (start, completion or cancellation) happens. */
        Instant dueAt;

        Event(String id, Scenario scenario) {
            this.id = id;
            this.scenario = scenario;
        }

        boolean isStarted() {
            return notBefore == null;
        }
    }
}
