package io.github.scheduledeventsbridge.imds;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.scheduledeventsbridge.storage.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The identity IMDS gave in an earlier run, kept in {@code vm-identity.json} in the state dir (replaced
 * atomically), so that a restarted agent knows which events are this VM's before instance metadata answers.
 * A file that cannot be read is ignored (the identity is then unknown until IMDS answers), never fatal.
 */
final class LastKnownIdentity {

    static final String FILE = "vm-identity.json";
    private static final Logger LOG = LoggerFactory.getLogger(LastKnownIdentity.class);
    private static final ObjectMapper MAPPER = io.github.scheduledeventsbridge.json.Json.MAPPER;
    /** Four short fields: anything larger is not this file. */
    private static final int MAX_BYTES = 16 * 1024;

    private final Path file;

    LastKnownIdentity(Path stateDir) {
        this.file = stateDir.resolve(FILE);
    }

    /** The identity an earlier run recorded, or null. */
    VmIdentity.Vm load() {
        byte[] content;
        try (InputStream in = Files.newInputStream(file)) {
            content = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException none) {
            return null;
        } catch (IOException e) {
            LOG.warn("Cannot read {} ({}): this VM's identity is unknown until IMDS instance metadata answers",
                    file, e.getMessage());
            return null;
        }
        try {
            if (content.length > MAX_BYTES) {
                throw new InvalidDocumentException("over " + MAX_BYTES + " bytes");
            }
            return VmIdentity.parse(new String(content, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            LOG.warn("Ignoring {} ({}): this VM's identity is unknown until IMDS instance metadata answers",
                    file, e.getMessage());
            return null;
        }
    }

    /** Records what IMDS said; a failure to write costs only the head start of the next run. */
    void save(VmIdentity.Vm vm, Instant learned) {
        ObjectNode json = MAPPER.createObjectNode().put("name", vm.name()).put("vmId", vm.vmId())
                .put("resourceId", vm.resourceId()).put("location", vm.location()).put("learned", learned.toString());
        try {
            AtomicFiles.write(file, MAPPER.writeValueAsBytes(json));
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot record this VM's identity in {} ({}): after a restart it is unknown until IMDS "
                    + "instance metadata answers", file, e.getMessage());
        }
    }
}
