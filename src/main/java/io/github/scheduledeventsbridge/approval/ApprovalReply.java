package io.github.scheduledeventsbridge.approval;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.http.HttpPort;

/** The remote API's answer (docs/approvals.md, "The API"): its status and JSON body, written once by the route. */
public record ApprovalReply(int status, String json) {

    /** IMDS could not be reached or did not answer 200. */
    static final int IMDS_FAILED = 502;

    public static ApprovalReply error(int status, String reason) {
        return new ApprovalReply(status, HttpPort.errorJson(reason));
    }

    /** 200 with what was approved; a refusal's status; 502 when IMDS failed. */
    public static ApprovalReply of(ApprovalOutcome outcome) {
        if (outcome instanceof ApprovalOutcome.Refused refused) {
            return error(refused.status(), refused.reason());
        }
        if (outcome instanceof ApprovalOutcome.Failed failed) {
            return error(IMDS_FAILED, failed.reason());
        }
        ApprovalOutcome.Approved approved = (ApprovalOutcome.Approved) outcome;
        ObjectNode answer = ApprovalBodies.MAPPER.createObjectNode();
        ArrayNode ids = answer.putArray("approved");
        approved.approved().forEach(ids::add);
        if (!approved.alreadyApproved().isEmpty()) {
            approved.alreadyApproved().forEach(answer.putArray("alreadyApproved")::add);
        }
        answer.put("recorded", approved.recorded());
        if (!approved.recorded()) {
            answer.put("note", "IMDS accepted; the state cannot be written now, the Approved transition is "
                    + "recorded and sent with the next poll");
        }
        return new ApprovalReply(200, ApprovalBodies.json(answer));
    }
}
