package io.github.scheduledeventsbridge.delivery.eventhubs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.github.scheduledeventsbridge.delivery.FilterSettings;
import io.github.scheduledeventsbridge.delivery.Sink;
import io.github.scheduledeventsbridge.delivery.SinkRegistry;
import io.github.scheduledeventsbridge.delivery.Spool;
import io.github.scheduledeventsbridge.delivery.SpoolEntry;
import io.github.scheduledeventsbridge.health.DeliveryMetrics;
import io.github.scheduledeventsbridge.imds.ScheduledEvent;
import io.github.scheduledeventsbridge.imds.VmIdentity;
import io.github.scheduledeventsbridge.peers.AmqpEventHubPeer;
import io.github.scheduledeventsbridge.transitions.CloudEventFactory;
import io.github.scheduledeventsbridge.transitions.DetectedTransition;
import io.github.scheduledeventsbridge.transitions.TransitionType;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Not a test: measures the Event Hubs sink's throughput to the local AMQP peer, transitions per second.
 * Runs the shipped routes (routes/eventhubs-sink.yaml, routes/error-handling.yaml) and beans: spool files
 * of {@code batch} CloudEvents (made by the real CloudEventFactory, about 1 KB each) are read, cut into
 * batches, sent and deleted, one after the other as in the agent.
 *
 * <pre>
 * mvn -B -o -q test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * java -cp target/test-classes:target/classes:$(cat cp.txt) \
 *     io.github.scheduledeventsbridge.delivery.eventhubs.EventHubsThroughput [transitions=20000] [batch=100] [rounds=3]
 * </pre>
 */
public final class EventHubsThroughput {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private EventHubsThroughput() {
    }

    public static void main(String[] args) throws Exception {
        int total = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path state = Files.createTempDirectory("eventhubs-throughput");
        try (AmqpEventHubPeer peer = AmqpEventHubPeer.start(0); CamelContext camel = new DefaultCamelContext()) {
            Spool spool = new Spool(state.resolve("spool"));
            EventHubsSettings settings = new EventHubsSettings(peer.connectionString("hub"), "", "",
                    new FilterSettings(Set.of(), Set.of(), false));
            EventHubsSink.configureComponent(camel, settings, java.time.Duration.ofSeconds(30));
            Sink sink = EventHubsSink.create(settings, e -> true);
            SinkRegistry sinks = new SinkRegistry(List.of(sink));
            Properties properties = new Properties();
            properties.setProperty("bridge.delivery.initial-backoff", "500");
            properties.setProperty("bridge.delivery.max-backoff", "5000");
            properties.setProperty("bridge.approval.enabled", "false");
            camel.getPropertiesComponent().setInitialProperties(properties);
            camel.getRegistry().bind("spool", spool);
            camel.getRegistry().bind("eventHubsSender", new EventHubsSender(camel));
            properties.setProperty("bridge.delivery.dead-letter-after", "3600000");
            io.github.scheduledeventsbridge.delivery.DeadLetters deadLetters =
                    new io.github.scheduledeventsbridge.delivery.DeadLetters(spool, java.time.Clock.systemUTC());
            camel.getRegistry().bind("sinkRegistry", sinks);
            camel.getRegistry().bind("spoolContent", new io.github.scheduledeventsbridge.delivery.SpoolContent());
            camel.getRegistry().bind("deadLetters", deadLetters);
            camel.getRegistry().bind("deliveryRejections", new io.github.scheduledeventsbridge.delivery.DeliveryRejections(
                    java.time.Duration.ofHours(1), java.time.Clock.systemUTC()));
            io.github.scheduledeventsbridge.health.OutageLog outageLog = new io.github.scheduledeventsbridge.health.OutageLog(
                    new io.github.scheduledeventsbridge.health.OutageLog.Settings(java.time.Duration.ofMinutes(5)), sinks, spool,
                    new io.github.scheduledeventsbridge.imds.PollBackoff(java.time.Clock.systemUTC(), java.time.Duration.ofSeconds(1),
                            java.time.Duration.ofSeconds(10)), java.time.Clock.systemUTC());
            camel.getRegistry().bind("outageLog", outageLog);
            DeliveryMetrics metrics = new DeliveryMetrics(camel, spool, sinks,
                    new io.github.scheduledeventsbridge.delivery.SpoolInventory(state.resolve("spool"), sinks, deadLetters, Map.of()));
            camel.getRegistry().bind("deliveryMetrics", metrics);
            camel.getRegistry().bind("deliveryOutcome",
                    new io.github.scheduledeventsbridge.health.DeliveryOutcome(spool, deadLetters, outageLog, metrics));
            for (String routes : List.of("routes/error-handling.yaml", "routes/sink-lane.yaml", "routes/eventhubs-sink.yaml")) {
                PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.resolveResource(camel, "classpath:" + routes));
            }
            camel.addRoutes(sinks);
            camel.addTemplatedRoutes(sinks);
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();

            CloudEventFactory factory = cloudEvents();
            long seq = 0;
            seq = run(peer, spool, sink, template, factory, seq, total, batch, "warm-up (JIT, first connection)");
            for (int round = 1; round <= rounds; round++) {
                seq = run(peer, spool, sink, template, factory, seq, total, batch, "round " + round);
            }
        }
    }

    private static long run(AmqpEventHubPeer peer, Spool spool, Sink sink, ProducerTemplate template,
                            CloudEventFactory factory, long seq, int total, int batch, String label) throws Exception {
        List<SpoolEntry> entries = new ArrayList<>();
        long bytes = 0;
        for (int sent = 0; sent < total; sent += batch) {
            ArrayNode array = MAPPER.createArrayNode();
            long first = seq;
            for (int i = 0; i < Math.min(batch, total - sent); i++) {
                array.add(factory.create(transition(seq++)));
            }
            byte[] payload = MAPPER.writeValueAsBytes(array);
            bytes += payload.length;
            entries.add(spool.store(sink, first, payload));
        }
        int messagesBefore = peer.messages().size();
        int transfersBefore = peer.batches().size();
        long start = System.nanoTime();
        for (SpoolEntry entry : entries) {
            template.sendBody(entry.queue(), entry);
        }
        // A spool file is deleted only once the hub confirmed all its events: an empty spool = all delivered.
        while (spool.depth(sink.id()) > 0) {
            LockSupport.parkNanos(1_000_000);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        int received = peer.messages().size() - messagesBefore;
        if (received != total) {
            throw new IllegalStateException("the peer received " + received + " of " + total + " transitions");
        }
        System.out.printf(Locale.ROOT, "%s: %d transitions (%d spool files of %d, %.0f bytes per CloudEvent) "
                        + "in %.2f s = %.0f transitions/s, %d AMQP transfers%n", label, total, entries.size(), batch,
                (double) bytes / total, seconds, total / seconds, peer.batches().size() - transfersBefore);
        return seq;
    }

    private static CloudEventFactory cloudEvents() {
        VmIdentity identity = new VmIdentity(Clock.systemUTC());
        identity.set(new VmIdentity.Vm("bench-vm-0", "11111111-2222-3333-4444-555555555555",
                "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/bench-rg/providers/"
                        + "Microsoft.Compute/virtualMachines/bench-vm-0", "westeurope"));
        return new CloudEventFactory(Clock.systemUTC(), identity);
    }

    private static DetectedTransition transition(long i) {
        String id = String.format(Locale.ROOT, "%08X-7EC5-459C-90E0-E6C9A4318BA3", i);
        ScheduledEvent event = new ScheduledEvent(id, "Freeze", "VirtualMachine", List.of("bench-vm-0", "bench-vm-1"),
                "Scheduled", "Mon, 11 Apr 2022 22:26:58 GMT",
                "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
                "Platform", 5);
        return new DetectedTransition(TransitionType.Scheduled, event, null, "Scheduled", i + 1);
    }
}
