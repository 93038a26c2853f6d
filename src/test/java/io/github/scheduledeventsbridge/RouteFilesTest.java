package io.github.scheduledeventsbridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.main.DefaultRoutesCollector;
import org.apache.camel.spi.Resource;
import org.junit.jupiter.api.Test;

/**
 * The route files are named one by one: Camel resolves exact names directly, where a wildcard scans the fat jar; an
 * operator's list may have spaces after its commas.
 */
class RouteFilesTest {

    private final DefaultRoutesCollector collector = BridgeApplication.routeFiles();

    @Test
    void theShippedIncludePatternNamesEveryRouteFileOfTheProject() throws IOException {
        Properties shipped = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of("config/application.properties"))) {
            shipped.load(in);
        }
        Set<String> named = Arrays.stream(shipped.getProperty("camel.main.routes-include-pattern").split(","))
                .map(String::trim).collect(Collectors.toSet());
        Set<String> files;
        try (Stream<Path> routes = Files.list(Path.of("routes"))) {
            files = routes.map(p -> "classpath:routes/" + p.getFileName()).collect(Collectors.toSet());
        }
        assertThat(named).as("a route file missing here would silently not run").isEqualTo(files);
    }

    @Test
    void noRouteStartsOrStopsAnotherThroughTheControlBus() throws IOException {
        // What starts when is StartOrder's, in Java, through Camel's route controller.
        try (Stream<Path> routes = Files.list(Path.of("routes"))) {
            assertThat(routes.toList()).isNotEmpty().allSatisfy(route ->
                    assertThat(Files.readString(route)).as(route.toString()).doesNotContain("controlbus"));
        }
    }

    @Test
    void exactNamesAreResolvedWithoutAScanAndWildcardsStillScan() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            assertThat(names(collector.findRouteResourcesFromDirectory(context, null,
                    ", classpath:routes/poll.yaml ,, classpath:routes/dispatch.yaml,")))
                    .as("resolved as named; a scan would name each file by where it found it")
                    .containsExactly("classpath:routes/poll.yaml", "classpath:routes/dispatch.yaml");
            assertThat(collector.findRouteResourcesFromDirectory(context, null, "classpath:routes/*.yaml"))
                    .hasSizeGreaterThanOrEqualTo(7).allMatch(route -> !route.getLocation().startsWith("classpath:"));
        }
    }

    private static java.util.List<String> names(java.util.Collection<Resource> resources) {
        return resources.stream().map(Resource::getLocation).toList();
    }
}
