# scheduled-events-bridge: multi-stage build (Maven → JRE 17), runs as a non-root user with its state
# in a volume. On an Azure VM, the container must reach IMDS at 169.254.169.254 (the default bridge
# network does; so does --network host).
#
#   docker build -t scheduled-events-bridge .
#   docker run -d --name seb -v seb-state:/var/lib/scheduled-events-bridge \
#     -e BRIDGE_WEBHOOK_URLS=https://hooks.example.com/x -e BRIDGE_WEBHOOK_SECRET=… scheduled-events-bridge

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Dependencies first: a source change does not download the world again.
COPY pom.xml ./
RUN mvn -B -q dependency:go-offline
COPY config ./config
COPY routes ./routes
COPY src ./src
RUN mvn -B -q package -DskipTests

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 seb \
 && useradd --system --uid 10001 --gid seb --home-dir /var/lib/scheduled-events-bridge --shell /usr/sbin/nologin seb \
 && mkdir -p /var/lib/scheduled-events-bridge \
 && chown seb:seb /var/lib/scheduled-events-bridge
COPY --from=build /src/target/scheduled-events-bridge.jar /opt/scheduled-events-bridge/scheduled-events-bridge.jar
COPY config/*.properties /opt/scheduled-events-bridge/config/
COPY packaging/jvm.options /opt/scheduled-events-bridge/jvm.options
COPY bin/create-cds-archive /opt/scheduled-events-bridge/bin/
# Class-data sharing: a training run on the built-in simulator, with the JVM options below (../jvm.options
# next to the script), records the classes the agent loads, so that every start maps them instead of
# reading them from the fat jar (start to first poll ~1 s sooner).
RUN /opt/scheduled-events-bridge/bin/create-cds-archive /opt/scheduled-events-bridge/scheduled-events-bridge.jar \
      /opt/scheduled-events-bridge/scheduled-events-bridge.jsa
# Without BRIDGE_MANAGEMENT_USERNAME/PASSWORD the management server listens on the container's own
# loopback only (the HEALTHCHECK below still works); set them to reach /metrics and Hawtio from outside.
ENV BRIDGE_STATE_DIR=/var/lib/scheduled-events-bridge \
    BRIDGE_MANAGEMENT_HOST=0.0.0.0
VOLUME ["/var/lib/scheduled-events-bridge"]
WORKDIR /opt/scheduled-events-bridge
USER 10001:10001
EXPOSE 8080 8089
# Liveness over plain bash (no curl in the JRE image), on the configured management port
# (BRIDGE_MANAGEMENT_PORT, default 8080): "unhealthy" is what a restart can fix (a stopped Camel context),
# not a webhook that is down or an IMDS outage, which readiness (/observe/health/ready) and the alerts report.
# Five tries, 30 s apart, give a starting agent time before it counts as unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --retries=5 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${BRIDGE_MANAGEMENT_PORT:-8080} && printf 'GET /observe/health/live HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3 | grep -q ' 200 '"]
# The shipped JVM options (packaging/jvm.options, for a small, steady footprint; BENCHMARKS.md shows what
# each buys), then the class-data-sharing archive made above. To change them, mount your own file over
# /opt/scheduled-events-bridge/jvm.options (a stale archive then costs ~1 s and one warning line at most).
ENTRYPOINT ["java", "@/opt/scheduled-events-bridge/jvm.options", \
            "-XX:SharedArchiveFile=/opt/scheduled-events-bridge/scheduled-events-bridge.jsa", \
            "-jar", "/opt/scheduled-events-bridge/scheduled-events-bridge.jar"]
