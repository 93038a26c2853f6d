# scheduled-events-bridge: multi-stage build (Maven and JDK 17 → the agent on a jlink-ed Java runtime on a
# slim Debian), runs as the non-root user 10001 with its state in a volume. docs/install.md has the recipe
# (docker or podman), what must be writable, and how the container reaches IMDS on an Azure VM.
#
#   docker build -t scheduled-events-bridge .
#   docker run -d --name seb --network host --read-only --stop-timeout 20 \
#     -v seb-state:/var/lib/scheduled-events-bridge \
#     -e BRIDGE_WEBHOOK_URLS=https://hooks.example.com/x -e BRIDGE_WEBHOOK_SECRET=… scheduled-events-bridge
#
# The base images are build arguments (--build-arg BUILD_IMAGE=… --build-arg RUNTIME_IMAGE=…): the build
# image needs a JDK 17 with its jmods (jlink; Debian's also needs binutils) and Maven; the runtime image needs
# glibc 2.34 or later, zlib, bash, coreutils, grep and useradd (any Debian 12 or Ubuntu 22.04 or later).
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# Dependencies first: a source change does not download the world again.
COPY pom.xml ./
RUN mvn -B -q dependency:go-offline
COPY config ./config
COPY routes ./routes
COPY src ./src
# The jar, then the same jlink runtime the .deb and the .tar.gz ship (pom.xml's runtime.modules): no other
# release artifact is needed here, nor the tests (not even copied: .dockerignore).
RUN mvn -B -q package -Dmaven.test.skip=true -Drelease.skip=true \
 && mvn -B -q antrun:run@jlink-runtime

FROM ${RUNTIME_IMAGE}
RUN groupadd --system --gid 10001 seb \
 && useradd --system --uid 10001 --gid seb --home-dir /var/lib/scheduled-events-bridge --shell /usr/sbin/nologin seb \
 && mkdir -p /var/lib/scheduled-events-bridge \
 && chown seb:seb /var/lib/scheduled-events-bridge \
 && chmod 700 /var/lib/scheduled-events-bridge
COPY --from=build /src/target/runtime /opt/scheduled-events-bridge/runtime
COPY --from=build /src/target/scheduled-events-bridge.jar /opt/scheduled-events-bridge/scheduled-events-bridge.jar
COPY config/*.properties /opt/scheduled-events-bridge/config/
COPY packaging/jvm.options /opt/scheduled-events-bridge/jvm.options
COPY bin/create-cds-archive /opt/scheduled-events-bridge/bin/
# Class-data sharing: a training run on the built-in simulator, with the JVM options below, records the
# classes the agent loads, so that every start maps them instead of reading them from the fat jar (start to
# first poll ~1 s sooner). The script takes the runtime next to it (../runtime) and ../jvm.options.
RUN /opt/scheduled-events-bridge/bin/create-cds-archive /opt/scheduled-events-bridge/scheduled-events-bridge.jar \
      /opt/scheduled-events-bridge/scheduled-events-bridge.jsa
# Without BRIDGE_MANAGEMENT_USERNAME/PASSWORD the management server answers on the container's loopback only
# (the HEALTHCHECK below still works); set them to reach /metrics and Hawtio from outside.
ENV BRIDGE_STATE_DIR=/var/lib/scheduled-events-bridge \
    BRIDGE_MANAGEMENT_HOST=0.0.0.0
VOLUME ["/var/lib/scheduled-events-bridge"]
WORKDIR /opt/scheduled-events-bridge
USER 10001:10001
EXPOSE 8080 8089
# Liveness over plain bash (no curl in the image), on the configured management port
# (BRIDGE_MANAGEMENT_PORT, default 8080): "unhealthy" is what a restart can fix (a stopped Camel context),
# not a webhook that is down or an IMDS outage, which readiness (/observe/health/ready) and the alerts report.
# Five tries, 30 s apart, give a starting agent time before it counts as unhealthy. The command ends itself
# after 4 s: a hung agent accepts the connection but never answers, and not every runtime enforces --timeout
# (podman 4.3's "healthcheck run" waits for ever).
HEALTHCHECK --interval=30s --timeout=5s --retries=5 \
  CMD ["timeout", "4", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${BRIDGE_MANAGEMENT_PORT:-8080} && printf 'GET /observe/health/live HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3 | grep -q ' 200 '"]
# The shipped JVM options (packaging/jvm.options, for a small, steady footprint; BENCHMARKS.md shows what
# each buys), then the class-data-sharing archive made above. To change them, mount your own file over
# /opt/scheduled-events-bridge/jvm.options (a stale archive then costs ~1 s and one warning line at most).
ENTRYPOINT ["/opt/scheduled-events-bridge/runtime/bin/java", "@/opt/scheduled-events-bridge/jvm.options", \
            "-XX:SharedArchiveFile=/opt/scheduled-events-bridge/scheduled-events-bridge.jsa", \
            "-jar", "/opt/scheduled-events-bridge/scheduled-events-bridge.jar"]
