package floor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Rung 2 of bench/floor.py: what the seed sample does, in plain Java (JDK HttpClient GET, Jackson parse, 1 s sleep). */
public final class Poll {
    public static void main(String[] args) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ObjectMapper mapper = new ObjectMapper();
        HttpRequest request = HttpRequest.newBuilder(URI.create(args[0])).header("Metadata", "true")
                .timeout(Duration.ofSeconds(10)).GET().build();
        for (long n = 0; ; n++) {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            JsonNode document = mapper.readTree(response.body());
            if (n % 60 == 0) {
                System.out.println(response.statusCode() + " incarnation " + document.path("DocumentIncarnation").asInt());
            }
            Thread.sleep(1000);
        }
    }
}
