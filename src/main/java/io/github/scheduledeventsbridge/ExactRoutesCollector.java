package io.github.scheduledeventsbridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.main.DefaultRoutesCollector;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;

/**
 * Resolves route locations that name one file directly instead of scanning for them.
 *
 * <p>Camel Main looks up the route files twice at start-up (once for modelines, once to load them), and a
 * {@code classpath:} lookup scans the jar that holds the directory: in the 57 MB fat jar that inflates every
 * entry, about a second each time on a small VM. Exact names cost nothing; patterns with wildcards still go
 * through Camel's scan, so {@code camel.main.routes-include-pattern} keeps its documented meaning.
 */
public final class ExactRoutesCollector extends DefaultRoutesCollector {

    @Override
    public Collection<Resource> findRouteResourcesFromDirectory(CamelContext camelContext, String excludePattern,
                                                                 String includePattern) {
        if (includePattern == null) {
            return super.findRouteResourcesFromDirectory(camelContext, excludePattern, null);
        }
        List<Resource> exact = new ArrayList<>();
        List<String> patterns = new ArrayList<>();
        for (String location : includePattern.split(",")) {
            String trimmed = location.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            if (isExact(trimmed)) {
                Resource resource = PluginHelper.getResourceLoader(camelContext).resolveResource(trimmed);
                if (resource != null && resource.exists()) {
                    exact.add(resource);
                    continue;
                }
            }
            patterns.add(trimmed);   // a wildcard, or a name Camel should report as missing its own way
        }
        if (!patterns.isEmpty()) {
            exact.addAll(super.findRouteResourcesFromDirectory(camelContext, excludePattern, String.join(",", patterns)));
        }
        return exact;
    }

    static boolean isExact(String location) {
        return location.indexOf('*') < 0 && location.indexOf('?') < 0 && !location.endsWith("/");
    }
}
