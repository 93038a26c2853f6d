package io.github.scheduledeventsbridge.approval;

import io.github.scheduledeventsbridge.transitions.DetectedTransition;

/**
 * Where an approval came from: named in the audit line (its {@link #toString()}), in the Approved transition's
 * {@code approval.by} and {@code rule} (docs/interface.md), and in the outcome {@code bridge_approvals_total} counts.
 */
public sealed interface ApprovalOrigin {

    /** The Approved transition's {@code approval} object: who approved, by which rule. */
    DetectedTransition.Approval approval();

    /** The remote approval API: the client's address. */
    record Client(String address) implements ApprovalOrigin {
        @Override
        public DetectedTransition.Approval approval() {
            return new DetectedTransition.Approval("remote", null, false);
        }

        @Override
        public String toString() {
            return address;
        }
    }

    /** A message taken from an Azure Storage queue, its signature and timestamp checked by the queue's reader. */
    record Queue(String queue, String messageId) implements ApprovalOrigin {
        @Override
        public DetectedTransition.Approval approval() {
            return new DetectedTransition.Approval("remote", null, false);
        }

        @Override
        public String toString() {
            return "queue " + queue + " message " + messageId;
        }
    }

    /** Auto-approval: the policy's rule that approves the event. */
    record Policy(String rule) implements ApprovalOrigin {
        @Override
        public DetectedTransition.Approval approval() {
            return new DetectedTransition.Approval("policy", rule, false);
        }

        @Override
        public String toString() {
            return "policy (rule " + rule + ")";
        }
    }

    /** {@code bridge.approval.auto.after-prepare}: this VM's prepare command succeeded. */
    record AfterPrepare() implements ApprovalOrigin {
        @Override
        public DetectedTransition.Approval approval() {
            return new DetectedTransition.Approval("policy", "after-prepare", false);
        }

        @Override
        public String toString() {
            return "after-prepare";
        }
    }
}
