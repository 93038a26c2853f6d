package io.github.scheduledeventsbridge.delivery;

import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SinkRegistryTest {

    @Test
    @DisplayName("sinks() keeps the configured order and cannot be changed afterwards")
    void sinksImmutable() {
        List<Sink> configured = new ArrayList<>(List.of(
                new Sink("b", "desc", "tpl", Sink.Target.NONE, e -> true),
                new Sink("a", "desc", "tpl", Sink.Target.NONE, e -> true)));
        SinkRegistry registry = new SinkRegistry(configured);
        configured.clear();

        assertThat(registry.sinks()).extracting(Sink::id).containsExactly("b", "a");
        assertThatThrownBy(() -> registry.sinks().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("labels: each kind of sink named as a person knows it, never with a secret; the id added when two read the same")
    void labels() {
        SinkFilter all = SinkFilter.all();
        List<Sink> sinks = new ArrayList<>(WebhookSink.create(List.of(
                new WebhookTarget(java.net.URI.create("https://user:pw@hooks.example.com/T0/B0/secret?code=x"), WebhookFormat.SLACK),
                new WebhookTarget(java.net.URI.create("http://[::1]:8080/in"), WebhookFormat.CLOUDEVENTS),
                new WebhookTarget(java.net.URI.create("https://hooks.example.com/other"), WebhookFormat.TEAMS)),
                all, new java.util.HashMap<>()));
        sinks.add(io.github.scheduledeventsbridge.delivery.email.EmailSink.create(
                new io.github.scheduledeventsbridge.delivery.email.EmailSettings("mail.example.com", 587, "u", "secret",
                        "a@example.com", List.of("b@example.com", "c@example.com"), true, null), all));
        sinks.add(io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSink.create(
                new io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSettings("", "ns", "hub", null), all));
        sinks.add(io.github.scheduledeventsbridge.delivery.eventlog.EventLogSink.create(
                new io.github.scheduledeventsbridge.delivery.eventlog.EventLogSettings(true, "source", null), all));
        Sink byConnectionString = io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSink.create(
                new io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsSettings(
                        "Endpoint=sb://cs.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=secretkey;EntityPath=h",
                        "", "", null), all);
        SinkRegistry registry = new SinkRegistry(sinks);

        String slack = sinks.get(0).id();
        String teams = sinks.get(2).id();
        assertThat(sinks).extracting(sink -> registry.label(sink.id())).containsExactly(
                "webhook hooks.example.com (" + slack + ")", "webhook [::1]:8080", "webhook hooks.example.com (" + teams + ")",
                "SMTP mail.example.com:587", "Event Hubs ns/hub", "Windows Event Log");
        assertThat(new SinkRegistry(List.of(byConnectionString)).label("eventhubs"))
                .isEqualTo("Event Hubs sb://cs.servicebus.windows.net//h");
        assertThat(registry.label("unknown")).isEqualTo("unknown");
    }

    @Test
    @DisplayName("each sink has its own lane and route id")
    void lanes() {
        Sink sink = new Sink("webhook-0a1b2c", "desc", "tpl", Sink.Target.NONE, e -> true);

        assertThat(sink.queue()).isEqualTo("seda:sink-webhook-0a1b2c");
        assertThat(sink.routeId()).isEqualTo("sink-webhook-0a1b2c");
    }

    @Test
    @DisplayName("a sink with several lanes: every message of one event in the same lane, whatever the EventId's case")
    void severalLanes() {
        Sink sink = new Sink("w", "desc", "tpl", Sink.Target.NONE, e -> true, false, 4);

        assertThat(List.of(0, 1, 2, 3)).extracting(sink::queue)
                .containsExactly("seda:sink-w", "seda:sink-w-1", "seda:sink-w-2", "seda:sink-w-3");
        assertThat(List.of(0, 1, 2, 3)).extracting(sink::routeId)
                .containsExactly("sink-w", "sink-w-1", "sink-w-2", "sink-w-3");
        java.util.Set<String> used = new java.util.HashSet<>();
        for (int i = 0; i < 100; i++) {
            String eventId = String.format("C7061BAC-AFDC-4513-B24B-%012d", i);
            assertThat(sink.queueFor(eventId.toLowerCase(java.util.Locale.ROOT))).isEqualTo(sink.queueFor(eventId));
            used.add(sink.queueFor(eventId));
        }
        assertThat(used).as("events spread over every lane").hasSize(4);
        // String.hashCode is part of the language: the same lane in every run and after a restart.
        assertThat(sink.queueFor("C7061BAC-AFDC-4513-B24B-AA5F13A16123")).isEqualTo(
                sink.queue(Math.floorMod("C7061BAC-AFDC-4513-B24B-AA5F13A16123".hashCode(), 4)));
        assertThat(sink.queueFor(null)).isEqualTo(sink.queueFor("")).isEqualTo("seda:sink-w");
        assertThat(new Sink("one", "desc", "tpl", Sink.Target.NONE, e -> true).queueFor("C7061BAC-AFDC-4513-B24B-AA5F13A16123"))
                .isEqualTo("seda:sink-one");
        assertThatThrownBy(() -> new Sink("hub", "desc", "tpl", Sink.Target.NONE, e -> true, true, 2))
                .as("a batched sink keeps one lane").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("lanes: a route per lane, all from the one template")
    void lanesForEveryLane() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(laneTemplate());
            addLanes(camel, new SinkRegistry(List.of(new Sink("w", "webhook", "log:w", Sink.Target.NONE, e -> true, false, 3),
                    new Sink("one", "email", "log:one", Sink.Target.NONE, e -> true))));
            camel.start();

            assertThat(camel.getRoutes()).extracting(r -> r.getRouteId() + " " + r.getEndpoint().getEndpointUri())
                    .containsExactlyInAnyOrder("sink-w seda://sink-w", "sink-w-1 seda://sink-w-1",
                            "sink-w-2 seda://sink-w-2", "sink-one seda://sink-one");
        }
    }

    @Test
    @DisplayName("lanes: one per sink from the one template, each calling its sink's attempt")
    void lanePerSink() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(laneTemplate());
            SinkRegistry registry = new SinkRegistry(List.of(
                    new Sink("one", "first", "log:one", Sink.Target.NONE, e -> true),
                    new Sink("two", "second", "log:two", Sink.Target.NONE, e -> true)));

            addLanes(camel, registry);
            camel.start();

            Route one = camel.getRoute("sink-one");
            Route two = camel.getRoute("sink-two");
            assertThat(one).isNotNull();
            assertThat(two).isNotNull();
            assertThat(one.getEndpoint().getEndpointUri()).isEqualTo("seda://sink-one");
            assertThat(two.getEndpoint().getEndpointUri()).isEqualTo("seda://sink-two");
            assertThat(camel.getRoutes()).hasSize(2);
        }
    }

    @Test
    @DisplayName("each lane carries its own sink, with its own target, to its attempt")
    void laneCarriesItsSink() throws Exception {
        WebhookTarget one = new WebhookTarget(java.net.URI.create("https://one.example.com/"), WebhookFormat.CLOUDEVENTS);
        WebhookTarget two = new WebhookTarget(java.net.URI.create("https://two.example.com/"), WebhookFormat.SLACK);
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(laneTemplate());
            addLanes(camel, new SinkRegistry(List.of(new Sink("one", "first", "log:one", one, e -> true),
                    new Sink("two", "second", "log:two", two, e -> true))));
            camel.start();

            org.apache.camel.Exchange sent = camel.createProducerTemplate().send("seda:sink-two?waitForTaskToComplete=Always", e -> { });
            assertThat(sent.getProperty(Sink.PROPERTY, Sink.class).targetAs(WebhookTarget.class)).isSameAs(two);
        }
    }

    @Test
    @DisplayName("lanes with no sinks: no route")
    void noSinks() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            addLanes(camel, new SinkRegistry(List.of()));
            camel.start();
            assertThat(camel.getRoutes()).isEmpty();
        }
    }

    /** As Camel Main adds a RoutesBuilder: its routes, then the routes from templates. */
    private static void addLanes(CamelContext camel, SinkRegistry registry) throws Exception {
        camel.addRoutes(registry);
        camel.addTemplatedRoutes(registry);
    }

    /** A stand-in for routes/sink-lane.yaml with the same parameters: from the lane's queue, with its sink, to the sink's attempt. */
    private static RouteBuilder laneTemplate() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                routeTemplate(SinkRegistry.LANE_TEMPLATE)
                        .templateParameter("queue")
                        .templateParameter("attempt")
                        .from("{{queue}}")
                        .setProperty(Sink.PROPERTY, expression().ref("{{sink}}").end())
                        .to("{{attempt}}");
            }
        };
    }
}
