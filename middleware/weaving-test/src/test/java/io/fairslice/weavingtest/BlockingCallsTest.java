package io.fairslice.weavingtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairslice.middleware.FairsliceFilter;
import io.fairslice.middleware.schedule.ClassState;
import io.fairslice.weavingtest.shop.Orders;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.function.IntSupplier;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs in its own JVM (Surefire execution "blocking-calls") whose weaver also has {@code BlockingCallAspect}: the
 * JDBC calls that woven code makes give the request's run slot up for their length. A real embedded Tomcat with the
 * filter under {@code share}, a real database (H2, in memory), and a query whose one column is a Java function that
 * H2 calls while the query runs: it reads how many requests of the page's class hold a run slot at that moment.
 */
public class BlockingCallsTest {

    /** What the database function {@code HEAVY_RUNNING()} answers: set per test. */
    private static volatile IntSupplier heavyRunning = () -> -1;

    /** Called by H2 inside the query, on the request's thread. */
    public static int heavyRunning() {
        return heavyRunning.getAsInt();
    }

    @TempDir
    Path work;
    private Tomcat tomcat;
    private FairsliceFilter filter;
    private int port;

    /** The page's query made by the shop's woven code: the aspect declares it blocking. */
    public static final class WovenQuery extends HttpServlet {
        private final Orders orders;

        WovenQuery(JdbcDataSource database) {
            this.orders = new Orders(database);
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            try {
                resp.getWriter().print(orders.first("SELECT HEAVY_RUNNING()"));
            } catch (SQLException e) {
                throw new IOException(e);
            }
        }
    }

    /** The same query made by this test's own code, which is not in the weaving scope: nothing declares it. */
    public static final class UnwovenQuery extends HttpServlet {
        private final JdbcDataSource database;

        UnwovenQuery(JdbcDataSource database) {
            this.database = database;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            try (Connection c = database.getConnection(); Statement s = c.createStatement();
                    ResultSet rows = s.executeQuery("SELECT HEAVY_RUNNING()")) {
                rows.next();
                resp.getWriter().print(rows.getString(1));
            } catch (SQLException e) {
                throw new IOException(e);
            }
        }
    }

    @BeforeEach
    void start() throws Exception {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1");
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE ALIAS IF NOT EXISTS HEAVY_RUNNING FOR '" + BlockingCallsTest.class.getName()
                    + ".heavyRunning'");
        }
        tomcat = EmbeddedTomcats.onLoopback(work);
        Context context = tomcat.addContext("", work.toString());
        Tomcat.addServlet(context, "woven", new WovenQuery(database));
        Tomcat.addServlet(context, "unwoven", new UnwovenQuery(database));
        context.addServletMapping("/orders/woven", "woven");
        context.addServletMapping("/orders/unwoven", "unwoven");
        filter = EmbeddedTomcats.addFairslice(context, Map.of("policy", "share", "share.cpus", "1", "jmx", "false",
                "adaptive", "false", "rule.1", "heavy path=/orders/*"));
        tomcat.start();
        port = tomcat.getConnector().getLocalPort();
        ClassState heavy = filter.scheduler().classState(1);
        assertThat(heavy.name()).isEqualTo("heavy");
        heavyRunning = heavy::running;
    }

    @AfterEach
    void stop() throws Exception {
        tomcat.stop();
        tomcat.destroy();
    }

    @Test
    void shouldGiveTheRunSlotUpWhileAQueryFromWovenCodeRuns() {
        ClassState heavy = filter.scheduler().classState(1);

        String runningInQuery = get("/orders/woven");

        assertThat(runningInQuery).as("heavy requests holding a run slot while the page's query ran").isEqualTo("0");
        assertThat(heavy.slotsLentDeclared()).as("given up for getConnection and for executeQuery").isEqualTo(2);
        assertThat(heavy.inflight()).isZero();
    }

    @Test
    void shouldLeaveTheRunSlotWithARequestWhoseQueryCodeIsNotWoven() {
        ClassState heavy = filter.scheduler().classState(1);

        String runningInQuery = get("/orders/unwoven");

        assertThat(runningInQuery).as("heavy requests holding a run slot while the page's query ran").isEqualTo("1");
        assertThat(heavy.slotsLentDeclared()).isZero();
    }

    private String get(String path) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                    .openConnection();
            assertThat(c.getResponseCode()).as(path).isEqualTo(200);
            try (InputStream in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new IllegalStateException(path, e);
        }
    }
}
