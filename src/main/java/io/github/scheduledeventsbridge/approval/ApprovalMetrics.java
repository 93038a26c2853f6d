package io.github.scheduledeventsbridge.approval;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code bridge.approvals{outcome}} (Prometheus: {@code bridge_approvals_total}), counted here and nowhere else:
 * the remote API's {@code approved}, a refusal's HTTP status or {@code closed-unanswered}; {@code auto-approved},
 * {@code auto-failed}, {@code withheld-<reason>}; {@code queue-approved}, {@code queue-refused}, {@code queue-failed}.
 */
public final class ApprovalMetrics {

    static final String METER = "bridge.approvals";
    /** The help text of every bridge.approvals counter (Prometheus shows one per name). */
    static final String HELP = "Approvals: approved (remote API), auto-approved, auto-failed, "
            + "withheld-<reason> (auto-approval held back), or the HTTP status of a refusal";
    public static final String APPROVED = "approved";
    public static final String AUTO_APPROVED = "auto-approved";
    public static final String AUTO_FAILED = "auto-failed";
    public static final String CLOSED_UNANSWERED = "closed-unanswered";
    public static final String QUEUE_APPROVED = "queue-approved";
    public static final String QUEUE_REFUSED = "queue-refused";
    public static final String QUEUE_FAILED = "queue-failed";

    private final CamelContext context;
    /** Each counter looked up once: finding the registry scans Camel's registry. */
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public ApprovalMetrics(CamelContext context) {
        this.context = context;
    }

    /**
     * Where the bean is made: approved, auto-approved and auto-failed at 0 from the start, and with auto-approval
     * rules one withheld-… counter per reason.
     */
    public ApprovalMetrics registerMeters(boolean withAutoApprovalRules) {
        MeterRegistry registry = registry();
        if (registry == null) {
            return this;
        }
        for (String outcome : new String[]{APPROVED, AUTO_APPROVED, AUTO_FAILED}) {
            counter(registry, outcome);
        }
        if (withAutoApprovalRules) {
            for (ApprovalPolicy.Withheld reason : ApprovalPolicy.Withheld.values()) {
                counter(registry, withheld(reason));
            }
        }
        return this;
    }

    static String withheld(ApprovalPolicy.Withheld reason) {
        return "withheld-" + reason.slug;
    }

    /** One approval, refusal or unanswered connection; outcomes are a fixed, small set. */
    public void count(String outcome) {
        Counter counter = counters.get(outcome);
        if (counter == null) {
            MeterRegistry registry = registry();
            if (registry == null) {
                return;
            }
            counter = counter(registry, outcome);
        }
        counter.increment();
    }

    /** With camelContext, as the other bridge meters: Prometheus refuses one name with two sets of keys. */
    private Counter counter(MeterRegistry registry, String outcome) {
        return counters.computeIfAbsent(outcome, o -> Counter.builder(METER)
                .tags("camelContext", context.getName(), "outcome", o).description(HELP).register(registry));
    }

    private MeterRegistry registry() {
        return context.getRegistry().findSingleByType(MeterRegistry.class);
    }
}
