package floor;

import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.*;

/** One HTTP stack, N ports, each answering GET / with a small JSON: start time to listening, then idle (RSS read outside). */
public class HttpStackProbe {
    public static void main(String[] args) throws Exception {
        String stack = args[0];
        int ports = Integer.parseInt(args[1]);
        long jvmStart = ProcessHandle.current().info().startInstant().get().toEpochMilli();
        long t0 = System.currentTimeMillis();
        int[] bound = new int[stack.equals("mixed") ? 3 : ports];
        if (stack.equals("mixed")) { // the agent before: Jetty (management), Vert.x (approval), JDK (simulator)
            bound[0] = jetty();
            bound[1] = vertx();
            bound[2] = jdk();
        }
        for (int i = 0; i < ports && !stack.equals("mixed"); i++) {
            bound[i] = switch (stack) {
                case "jetty" -> jetty();
                case "vertx" -> vertx();
                case "jdk" -> jdk();
                default -> throw new IllegalArgumentException(stack);
            };
        }
        long listening = System.currentTimeMillis();
        // 200 requests per port, so the request path is loaded and compiled as in service.
        for (int p : bound) for (int i = 0; i < 200; i++) get(p);
        System.out.printf("%s x%d: servers started in %d ms (JVM start to listening %d ms), 200 requests per port done after %d ms%n",
                stack, ports, listening - t0, listening - jvmStart, System.currentTimeMillis() - t0);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    static void get(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getInputStream().readAllBytes();
        }
    }

    static int jetty() throws Exception {
        var pool = new org.eclipse.jetty.util.thread.QueuedThreadPool(6, 2);
        pool.setDaemon(true);
        pool.setReservedThreads(0);
        var server = new org.eclipse.jetty.server.Server(pool);
        var connector = new org.eclipse.jetty.server.ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new org.eclipse.jetty.server.Handler.Abstract() {
            @Override
            public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
                                  org.eclipse.jetty.util.Callback callback) {
                response.getHeaders().put("Content-Type", "application/json");
                response.write(true, java.nio.ByteBuffer.wrap("{\"status\":\"serving\"}".getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        server.start();
        return connector.getLocalPort();
    }

    static io.vertx.core.Vertx vertx;

    static int vertx() throws Exception {
        if (vertx == null) {
            vertx = io.vertx.core.Vertx.vertx(new io.vertx.core.VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(4)
                    .setInternalBlockingPoolSize(1).setPreferNativeTransport(false)
                    .setFileSystemOptions(new io.vertx.core.file.FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false)));
        }
        return vertx.createHttpServer(new io.vertx.core.http.HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(r -> r.response().putHeader("Content-Type", "application/json").end("{\"status\":\"serving\"}"))
                .listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).actualPort();
    }

    static int jdk() throws Exception {
        var server = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> { Thread t = new Thread(r); t.setDaemon(true); return t; }));
        server.createContext("/", e -> {
            byte[] b = "{\"status\":\"serving\"}".getBytes(StandardCharsets.UTF_8);
            e.getResponseHeaders().set("Content-Type", "application/json");
            e.sendResponseHeaders(200, b.length);
            e.getResponseBody().write(b);
            e.close();
        });
        server.start();
        return server.getAddress().getPort();
    }
}
