// Inventory sync service: an embedded HTTP server plus a worker pool that pulls supplier feeds
// over HTTP; logs through java.util.logging (SimpleFormatter) with FINE detail for some loggers.
import com.sun.net.httpserver.HttpServer;
import java.io.*;
import java.net.*;
import java.net.http.*;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.logging.*;

public class InventorySync {
    static final Logger LOG = Logger.getLogger("com.acme.inventory.SyncService");
    static final Logger FEED = Logger.getLogger("com.acme.inventory.feed.FeedClient");
    static final Logger DB = Logger.getLogger("com.acme.inventory.store.StockRepository");
    static final Map<String, Integer> stock = new ConcurrentHashMap<>();

    static class FeedException extends Exception {
        FeedException(String m, Throwable c) { super(m, c); }
    }

    static int parseQty(String supplier, String line) {
        String[] f = line.split(",");
        try {
            return Integer.parseInt(f[1].trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("bad quantity in feed of " + supplier + ": " + line, e);
        }
    }

    static void store(String sku, int qty) {
        if (qty < 0) throw new IllegalArgumentException("negative stock for " + sku + ": " + qty);
        stock.merge(sku, qty, Integer::sum);
        DB.fine("upsert sku=" + sku + " qty=" + qty);
    }

    static String fetch(HttpClient c, String url) throws FeedException {
        try {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(800)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() >= 500) throw new IOException("supplier returned HTTP " + r.statusCode());
            if (r.statusCode() == 404) { FEED.warning("feed not found: " + url); return ""; }
            FEED.fine("GET " + url + " -> " + r.statusCode() + " (" + r.body().length() + " bytes)");
            return r.body();
        } catch (IOException e) {
            throw new FeedException("cannot fetch feed " + url, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FeedException("interrupted while fetching " + url, e);
        }
    }

    static void sync(HttpClient c, String supplier, String url) {
        LOG.info("sync started for supplier " + supplier);
        try {
            String body = fetch(c, url);
            int n = 0;
            for (String line : body.split("\n")) {
                if (line.isBlank()) continue;
                try {
                    store(line.split(",")[0], parseQty(supplier, line));
                    n++;
                } catch (IllegalArgumentException e) {
                    LOG.log(Level.WARNING, "skipping row of " + supplier, e);
                }
            }
            LOG.info("sync finished for supplier " + supplier + ": " + n + " rows");
        } catch (FeedException e) {
            LOG.log(Level.SEVERE, "sync failed for supplier " + supplier, e);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "unexpected error during sync of " + supplier, e);
        }
    }

    public static void main(String[] a) throws Exception {
        HttpServer srv = HttpServer.create(new InetSocketAddress("127.0.0.1", 8705), 0);
        Random rnd = new Random(5);
        srv.createContext("/feed/", ex -> {
            String s = ex.getRequestURI().getPath().substring(6);
            int code = 200; StringBuilder b = new StringBuilder();
            if (s.startsWith("gone")) code = 404;
            else if (s.startsWith("flaky") && rnd.nextInt(3) == 0) code = 503;
            else if (s.startsWith("slow")) { try { Thread.sleep(1200); } catch (InterruptedException e) { } }
            else for (int i = 0; i < 12; i++) {
                String q = (s.startsWith("dirty") && i == 7) ? "n/a" : (s.startsWith("neg") && i == 3) ? "-4" : "" + rnd.nextInt(50);
                b.append("SKU-").append(s.hashCode() & 0xff).append('-').append(i).append(',').append(q).append('\n');
            }
            byte[] out = b.toString().getBytes();
            ex.sendResponseHeaders(code, code == 200 ? out.length : -1);
            if (code == 200) ex.getResponseBody().write(out);
            ex.close();
        });
        srv.setExecutor(Executors.newFixedThreadPool(4));
        srv.start();
        LOG.info("feed stub listening on 127.0.0.1:8705");
        HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        String[] suppliers = {"acme", "globex", "initech", "flaky-umbrella", "dirty-hooli", "neg-vandelay", "gone-wonka", "slow-cyberdyne"};
        ExecutorService pool = Executors.newFixedThreadPool(3);
        for (int round = 1; round <= 6; round++) {
            LOG.info("sync round " + round + " begins (" + suppliers.length + " suppliers)");
            List<Future<?>> fs = new ArrayList<>();
            for (String s : suppliers) fs.add(pool.submit(() -> sync(c, s, "http://127.0.0.1:8705/feed/" + s)));
            if (round % 3 == 0) fs.add(pool.submit(() -> sync(c, "offline-soylent", "http://127.0.0.1:8799/feed/x")));
            for (Future<?> f : fs) f.get();
            try {
                List<String> overrides = Files.readAllLines(Path.of("/etc/acme/overrides-" + round + ".csv"));
                LOG.config("loaded " + overrides.size() + " overrides");
            } catch (IOException e) {
                LOG.log(Level.WARNING, "no manual overrides for round " + round, e);
            }
            LOG.info("round " + round + " done, " + stock.size() + " skus in store");
        }
        pool.shutdown();
        srv.stop(0);
        LOG.info("shutdown complete");
        System.exit(0);
    }
}
