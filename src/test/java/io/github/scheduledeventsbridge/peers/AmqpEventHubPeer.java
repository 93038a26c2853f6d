package io.github.scheduledeventsbridge.peers;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.*;

import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.*;
import org.apache.qpid.proton.amqp.transport.ConnectionError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.engine.*;
import org.apache.qpid.proton.engine.impl.TransportImpl;
import org.apache.qpid.proton.message.Message;
import org.apache.qpid.proton.reactor.Acceptor;
import org.apache.qpid.proton.reactor.Reactor;
import org.apache.qpid.proton.reactor.Selectable;
import org.apache.qpid.proton.reactor.impl.AcceptorImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real AMQP 1.0 listener (proton-j reactor) that stands in for Azure Event Hubs for the Azure SDK and
 * camel-azure-eventhubs: connection strings with {@code UseDevelopmentEmulator=true} make the SDK use plain TCP and
 * SASL ANONYMOUS. It answers {@code $cbs} put-token and {@code $management} READ requests, accepts and records
 * every transfer. Proton objects are only touched on the reactor thread; other threads queue work in {@link #commands}.
 */
public final class AmqpEventHubPeer implements AutoCloseable {

    /** One event as the hub received it; {@code partitionId} is set if the link target was {@code hub/Partitions/N}. */
    public record ReceivedMessage(byte[] body, Map<String, Object> applicationProperties, String partitionKey,
                                  String address, Integer partitionId) {
        public String bodyAsString() { return new String(body, StandardCharsets.UTF_8); }
    }

    /** The messages of one AMQP transfer; {@code batched} = sent in the Event Hubs batch format 0x80013700. */
    public record Batch(List<ReceivedMessage> messages, boolean batched) {
        public int size() { return messages.size(); }
    }

    private static final Logger LOG = LoggerFactory.getLogger(AmqpEventHubPeer.class);
    private static final int BATCH_FORMAT = 0x80013700;
    private static final Symbol PARTITION_KEY = Symbol.valueOf("x-opt-partition-key");
    private static final int CREDIT = 1000;
    private static final long MAX_MESSAGE_SIZE = 1024 * 1024; // the SDK sizes its batches from this attach field
    private static final EnumSet<EndpointState> ACTIVE = EnumSet.of(EndpointState.ACTIVE);

    private final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final List<Batch> batches = new CopyOnWriteArrayList<>();
    private final Set<Connection> connections = new HashSet<>();  // reactor thread only (as are the fields below)
    private final DecoderImpl decoder = new DecoderImpl();
    private final PeerHandler handler = new PeerHandler();
    private final Reactor reactor;
    private final Thread thread;
    private volatile boolean running = true;
    /** A hub that takes events and never says whether it accepted them. */
    private volatile boolean unsettling;
    /** A hub that rejects (amqp:internal-error) every transfer under this partition key. */
    private volatile String refusedKey;
    private volatile int port;
    private Acceptor acceptor;
    private CompletableFuture<Void> drained = new CompletableFuture<>(); // stop(): every socket is closed
    private long tags;

    private AmqpEventHubPeer() throws Exception {
        AMQPDefinedTypes.registerAllTypes(decoder, new EncoderImpl(decoder));
        reactor = Proton.reactor(handler);
        thread = new Thread(this::loop, "amqp-event-hub-peer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Listens on 127.0.0.1:{@code port}; 0 picks a free port. */
    public static AmqpEventHubPeer start(int port) {
        try {
            AmqpEventHubPeer peer = new AmqpEventHubPeer();
            peer.onReactor(() -> peer.listen(port));
            return peer;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start AMQP peer on port " + port, e);
        }
    }

    public int port() { return port; }

    public String connectionString(String hub) {
        return "Endpoint=sb://127.0.0.1:" + port + ";SharedAccessKeyName=test;SharedAccessKey=dGVzdA==;EntityPath="
                + hub + ";UseDevelopmentEmulator=true";
    }

    /** Thread-safe snapshots, in arrival order. */
    public List<Batch> batches() { return List.copyOf(batches); }

    public List<ReceivedMessage> messages() { return batches().stream().flatMap(b -> b.messages().stream()).toList(); }

    /** The hub goes down: listening socket closed, every connection closed (politely, then by force after 250 ms). */
    /** From now on events sent to the hub are taken off the link but never settled, nor recorded (true). */
    public void neverSettle(boolean never) {
        unsettling = never;
    }

    /** From now on transfers under this partition key are rejected, not recorded (null: none is). */
    public void refusePartitionKey(String partitionKey) {
        refusedKey = partitionKey;
    }

    public void stop() {
        CompletableFuture<Void> closed = onReactor(() -> {
            if (acceptor != null) acceptor.close(); // new connections are now refused
            acceptor = null;
            drained = new CompletableFuture<>();
            for (Connection c : connections) {
                c.setCondition(new ErrorCondition(ConnectionError.CONNECTION_FORCED, "test peer stopped"));
                c.close();
            }
            checkDrained();
            return drained;
        });
        try {
            closed.get(250, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) { // e.g. a client that sent half a header then reset: proton-j never ends it
            onReactor(() -> {
                for (Connection c : connections) {
                    Transport transport = c.getTransport();
                    transport.close_tail();
                    transport.close_head();
                    Selectable socket = ((TransportImpl) transport).getSelectable();
                    socket.terminate(); // the reactor's IO handler then closes the socket channel
                    reactor.update(socket);
                }
                connections.clear();
                return drained.complete(null);
            });
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Listens again on the same port; the SDK's reconnect attempts then find the hub again. */
    public void restart() {
        onReactor(() -> acceptor == null ? listen(port) : null);
    }

    @Override
    public void close() {
        if (thread.isAlive()) {
            stop();
            commands.add(() -> {
                running = false;
                reactor.stop();
            });
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- everything below runs on the reactor thread ----------------------------------------------------------

    /** Own loop instead of reactor.run(): an event whose handling throws is logged and skipped, never fatal. */
    private void loop() {
        // What reactor.run() sets: how long select() may block. Left at 0, every idle pass selects without
        // waiting and the peer spins a whole CPU core (the 10 ms timer still wakes it for queued commands).
        reactor.setTimeout(3141);
        reactor.start();
        for (boolean more = true; more; ) {
            try {
                more = reactor.process();
            } catch (Throwable t) {
                LOG.warn("AMQP peer: skipping event that failed", t);
                reactor.collector().pop(); // else process() dispatches the same event again, forever
            }
        }
        reactor.free();
    }

    private Void listen(int requested) throws Exception {
        acceptor = reactor.acceptor("127.0.0.1", requested, handler);
        port = ((AcceptorImpl) acceptor).getPortNumber();
        LOG.info("AMQP Event Hubs peer listening on 127.0.0.1:{}", port);
        return null;
    }

    private void checkDrained() {
        if (connections.isEmpty()) drained.complete(null);
    }

    private <T> T onReactor(Callable<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        commands.add(() -> {
            try {
                result.complete(work.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result.orTimeout(10, TimeUnit.SECONDS).join();
    }

    private void openLink(Link link) {
        link.setSource(link.getRemoteSource()); // echo the terminus: a null one in our attach would mean "refused"
        link.setTarget(link.getRemoteTarget());
        link.setSenderSettleMode(link.getRemoteSenderSettleMode());
        link.setReceiverSettleMode(link.getRemoteReceiverSettleMode());
        link.setMaxMessageSize(UnsignedLong.valueOf(MAX_MESSAGE_SIZE));
        link.open();
        if (link instanceof Receiver receiver) receiver.flow(CREDIT);
    }

    private void receive(Delivery delivery) {
        if (!(delivery.getLink() instanceof Receiver link)) return; // our replies are pre-settled: nothing to do
        if (delivery.isAborted()) {
            delivery.settle();
            return;
        }
        if (!delivery.isReadable() || delivery.isPartial()) return; // big transfers span frames: wait for the last
        byte[] payload = new byte[delivery.available()];
        link.recv(payload, 0, payload.length);
        link.advance();
        String address = address(link.getRemoteTarget());
        try {
            if ("$cbs".equals(address) || "$management".equals(address)) {
                Message request = Message.Factory.create();
                request.decode(payload, 0, payload.length);
                reply(link, address, request);
            } else if (unsettling) {
                if (link.getCredit() < CREDIT / 2) link.flow(CREDIT - link.getCredit());
                return;
            } else {
                record(address, payload, delivery.getMessageFormat());
            }
            delivery.disposition(Accepted.getInstance());
        } catch (RuntimeException e) {
            LOG.warn("AMQP peer: rejecting transfer to {}", address, e);
            Rejected rejected = new Rejected();
            rejected.setError(new ErrorCondition(Symbol.valueOf("amqp:internal-error"), String.valueOf(e)));
            delivery.disposition(rejected);
        }
        delivery.settle();
        if (link.getCredit() < CREDIT / 2) link.flow(CREDIT - link.getCredit());
    }

    /** Request/response node: answer on the client's receiver link whose source is that node. */
    private void reply(Receiver requestLink, String node, Message request) {
        Message response = Message.Factory.create();
        response.setCorrelationId(request.getMessageId());
        response.setApplicationProperties(new ApplicationProperties(Map.of(
                "status-code", 200, "status-description", "OK"))); // the SDK casts status-code to Integer
        if ("$management".equals(node)) {
            response.setBody(new AmqpValue(managementBody(request.getApplicationProperties().getValue())));
        }
        Sender replyLink = null;
        Connection connection = requestLink.getSession().getConnection();
        for (Link l = connection.linkHead(ACTIVE, ACTIVE); l != null; l = l.next(ACTIVE, ACTIVE)) {
            if (l instanceof Sender s && node.equals(address(l.getRemoteSource()))
                    && (replyLink == null || Objects.equals(request.getReplyTo(), address(l.getRemoteTarget())))) {
                replyLink = s;
            }
        }
        if (replyLink == null) throw new IllegalStateException("client opened no receiver link on " + node);
        byte[] buffer = new byte[64 * 1024];
        int length = response.encode(buffer, 0, buffer.length);
        Delivery d = replyLink.delivery(Long.toString(tags++).getBytes(StandardCharsets.US_ASCII));
        replyLink.send(buffer, 0, length);
        replyLink.advance();
        d.settle(); // pre-settled: the SDK opens these links with snd-settle-mode=settled
    }

    private static Map<String, Object> managementBody(Map<String, Object> request) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", String.valueOf(request.get("name")));
        if ("com.microsoft:partition".equals(request.get("type"))) {
            body.put("partition", String.valueOf(request.get("partition")));
            body.put("begin_sequence_number", -1L);
            body.put("last_enqueued_sequence_number", -1L);
            body.put("last_enqueued_offset", "-1");
            body.put("last_enqueued_time_utc", new Date());
            body.put("is_partition_empty", true);
        } else { // com.microsoft:eventhub
            body.put("created_at", new Date());
            body.put("partition_ids", new String[] {"0"});
        }
        return body;
    }

    /** A batch transfer's body is a sequence of Data sections, each one complete encoded AMQP message. */
    private void record(String address, byte[] payload, int messageFormat) {
        List<Object> sections = decodeSections(payload);
        List<ReceivedMessage> messages = new ArrayList<>();
        if (messageFormat == BATCH_FORMAT) {
            String envelopeKey = toMessage(sections, address, null).partitionKey();
            for (Object section : sections) {
                if (section instanceof Data data) {
                    messages.add(toMessage(decodeSections(bytes(data.getValue())), address, envelopeKey));
                }
            }
        } else {
            messages.add(toMessage(sections, address, null));
        }
        if (refusedKey != null && refusedKey.equals(messages.isEmpty() ? null : messages.get(0).partitionKey())) {
            throw new IllegalStateException("partition key " + refusedKey + " refused");
        }
        batches.add(new Batch(List.copyOf(messages), messageFormat == BATCH_FORMAT));
    }

    private ReceivedMessage toMessage(List<Object> sections, String address, String partitionKey) {
        byte[] body = new byte[0];
        Map<String, Object> props = new LinkedHashMap<>();
        for (Object section : sections) {
            if (section instanceof MessageAnnotations ma && ma.getValue().get(PARTITION_KEY) != null) {
                partitionKey = String.valueOf(ma.getValue().get(PARTITION_KEY));
            } else if (section instanceof ApplicationProperties ap && ap.getValue() != null) {
                props.putAll(ap.getValue());
            } else if (section instanceof Data data) {
                body = bytes(data.getValue());
            } else if (section instanceof AmqpValue value) {
                body = value.getValue() instanceof Binary b ? bytes(b)
                        : String.valueOf(value.getValue()).getBytes(StandardCharsets.UTF_8);
            }
        }
        int i = address == null ? -1 : address.toLowerCase(Locale.ROOT).indexOf("/partitions/");
        Integer partitionId = i < 0 ? null : Integer.valueOf(address.substring(i + "/partitions/".length()));
        return new ReceivedMessage(body, Collections.unmodifiableMap(props), partitionKey, address, partitionId);
    }

    /** Reads section after section; proton's Message.decode would keep only one of a batch's Data sections. */
    private List<Object> decodeSections(byte[] payload) {
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        decoder.setByteBuffer(buffer);
        List<Object> sections = new ArrayList<>();
        while (buffer.hasRemaining()) {
            sections.add(decoder.readObject());
        }
        return sections;
    }

    private static byte[] bytes(Binary b) {
        return Arrays.copyOfRange(b.getArray(), b.getArrayOffset(), b.getArrayOffset() + b.getLength());
    }

    private static String address(Object terminus) {
        return terminus instanceof Target t ? t.getAddress() : terminus instanceof Source s ? s.getAddress() : null;
    }

    /** Opens whatever the client opens, closes what it closes; never lets an exception escape into the reactor. */
    private final class PeerHandler extends BaseHandler {
        @Override
        public void handle(Event e) {
            try {
                switch (e.getType()) {
                    case REACTOR_INIT -> reactor.schedule(10, this);
                    case TIMER_TASK -> { // poor man's executor: every 10 ms, run the work queued by other threads
                        if (running) reactor.schedule(10, this);
                        for (Runnable r; (r = commands.poll()) != null; ) r.run();
                    }
                    case CONNECTION_BOUND -> connections.add(e.getConnection());
                    case TRANSPORT_CLOSED -> {
                        connections.remove(e.getConnection());
                        checkDrained();
                    }
                    case CONNECTION_REMOTE_OPEN -> {
                        e.getConnection().setContainer("amqp-event-hub-peer");
                        e.getConnection().open();
                    }
                    case CONNECTION_REMOTE_CLOSE -> e.getConnection().close();
                    case SESSION_REMOTE_OPEN -> e.getSession().open();
                    case SESSION_REMOTE_CLOSE -> e.getSession().close();
                    case LINK_REMOTE_OPEN -> openLink(e.getLink());
                    case LINK_REMOTE_DETACH -> e.getLink().detach();
                    case LINK_REMOTE_CLOSE -> e.getLink().close();
                    case DELIVERY -> receive(e.getDelivery());
                    default -> { }
                }
            } catch (RuntimeException ex) { // e.g. a client that vanished mid-conversation: keep serving the others
                LOG.warn("AMQP peer: error while handling {}", e.getType(), ex);
            }
        }
    }
}
