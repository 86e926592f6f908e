package io.fairslice.middleware;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairslice.middleware.jdbc.BlockingDataSource;
import io.fairslice.middleware.jdbc.BlockingDataSourceFactory;
import io.fairslice.middleware.schedule.ClassState;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariJNDIFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ConnectionBuilder;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.Name;
import javax.naming.NamingException;
import javax.naming.spi.ObjectFactory;
import javax.sql.DataSource;
import org.h2.jdbc.JdbcConnection;
import org.apache.tomcat.util.descriptor.web.ContextResource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockingDataSource} over a real database (H2, in memory, which runs a query on the calling thread): in a real
 * embedded Tomcat under {@code share}, a query's one column is a Java function that reads how many requests of the
 * page's class hold a run slot while the query runs.
 */
public class BlockingDataSourceTest {

    private static volatile IntSupplier heavyRunning = () -> -1;

    /** Called by H2 inside the query, on the request's thread. */
    public static int heavyRunning() {
        return heavyRunning.getAsInt();
    }

    private static JdbcDataSource database;

    @BeforeAll
    static void createDatabase() throws SQLException {
        database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:blocking-data-source;DB_CLOSE_DELAY=-1");
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE ALIAS IF NOT EXISTS HEAVY_RUNNING FOR '" + BlockingDataSourceTest.class.getName()
                    + ".heavyRunning'");
            s.execute("CREATE TABLE IF NOT EXISTS orders (id INT PRIMARY KEY)");
        }
    }

    /** Where a page gets its data source: given, or looked up in JNDI as it runs. */
    interface Source {
        DataSource get() throws NamingException;
    }

    /** Queries through the data source it gets: a statement, a prepared statement, and a commit. */
    static final class Queries extends HttpServlet {
        private final Source source;

        Queries(Source source) {
            this.source = source;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            DataSource dataSource;
            try {
                dataSource = source.get();
            } catch (NamingException e) {
                resp.getWriter().print(e.getMessage() + (e.getRootCause() == null ? "" : " <- " + e.getRootCause()));
                return;
            }
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                String plain;
                try (Statement s = c.createStatement(); ResultSet rows = s.executeQuery("SELECT HEAVY_RUNNING()")) {
                    rows.next();
                    plain = rows.getString(1);
                }
                String prepared;
                try (PreparedStatement s = c.prepareStatement("SELECT HEAVY_RUNNING() + ?")) {
                    s.setInt(1, 0);
                    try (ResultSet rows = s.executeQuery()) {
                        rows.next();
                        prepared = rows.getString(1);
                    }
                }
                c.commit();
                resp.getWriter().print(plain + " " + prepared);
            } catch (SQLException e) {
                throw new IOException(e);
            }
        }
    }

    private static String queryInTomcat(DataSource dataSource, ClassState[] heavy) throws Exception {
        return queryInTomcat(() -> dataSource, null, heavy);
    }

    private static String queryInTomcat(Source source, ContextResource resource, ClassState[] heavy) throws Exception {
        EmbeddedTomcat tomcat = new EmbeddedTomcat("/db", Map.of("fairslice.rule.1", "heavy path=/orders",
                "fairslice.share.cpus", "1"), new SimpleMeterRegistry());
        if (resource != null) {
            tomcat.resource(resource);
        }
        try (EmbeddedTomcat t = tomcat.servlet("/orders", new Queries(source), false).start()) {
            heavy[0] = t.filter().scheduler().classState(1);
            heavyRunning = heavy[0]::running;
            var response = t.get("/orders");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return response.body();
        }
    }

    @Test
    void shouldGiveTheRunSlotUpWhileItsStatementsExecute() throws Exception {
        ClassState[] heavy = new ClassState[1];

        String runningInQueries = queryInTomcat(BlockingDataSource.wrap(database), heavy);

        assertThat(runningInQueries).as("heavy requests holding a run slot in the plain and the prepared query")
                .isEqualTo("0 0");
        assertThat(heavy[0].slotsLentDeclared()).as("getConnection, two queries, commit").isEqualTo(4);
    }

    @Test
    void shouldLeaveTheRunSlotWithTheRequestWithoutTheWrapper() throws Exception {
        ClassState[] heavy = new ClassState[1];

        String runningInQueries = queryInTomcat(database, heavy);

        assertThat(runningInQueries).isEqualTo("1 1");
        assertThat(heavy[0].slotsLentDeclared()).isZero();
    }

    /** A Tomcat resource made by another factory (here H2's), handed out wrapped: no change to the application. */
    @Test
    void shouldWrapTheDataSourceOfATomcatResourceMadeByAnotherFactory() throws Exception {
        ClassState[] heavy = new ClassState[1];
        ContextResource orders = h2Resource("org.h2.jdbcx.JdbcDataSourceFactory");

        String runningInQueries = queryInTomcat(BlockingDataSourceTest::lookUp, orders, heavy);

        assertThat(runningInQueries).isEqualTo("0 0");
        assertThat(heavy[0].slotsLentDeclared()).isEqualTo(4);
    }

    /**
     * Another pool's own JNDI factory behind fairslice's (HikariCP's, as the user guide names it): the lookup answers
     * the pool wrapped, its queries are declared, and the pool is closed with its application (its threads would
     * outlive a redeployment otherwise).
     */
    @Test
    void shouldWrapAHikariPoolMadeByItsOwnFactoryAndCloseItWithTheApplication() throws Exception {
        ClassState[] heavy = new ClassState[1];
        ContextResource r = new ContextResource();
        r.setName("jdbc/orders");
        r.setType(DataSource.class.getName()); // what HikariJNDIFactory makes resources of
        r.setProperty("factory", BlockingDataSourceFactory.class.getName());
        r.setProperty(BlockingDataSourceFactory.TARGET, HikariJNDIFactory.class.getName());
        r.setProperty("jdbcUrl", "jdbc:h2:mem:blocking-data-source;DB_CLOSE_DELAY=-1");
        r.setProperty("maximumPoolSize", "2");
        DataSource[] found = new DataSource[1];

        String runningInQueries = queryInTomcat(() -> found[0] = lookUp(), r, heavy);

        assertThat(runningInQueries).isEqualTo("0 0");
        assertThat(heavy[0].slotsLentDeclared()).isEqualTo(4);
        assertThat(found[0]).isInstanceOf(BlockingDataSource.class);
        HikariDataSource pool = found[0].unwrap(HikariDataSource.class);
        assertThat(pool.isClosed()).as("closed as Tomcat stopped the application").isTrue();
    }

    /** An object factory that makes something other than a data source, named in the lookup's error. */
    public static final class MakesAString implements ObjectFactory {
        @Override
        public Object getObjectInstance(Object obj, Name name, Context nameCtx, Hashtable<?, ?> environment) {
            return "not a pool";
        }
    }

    @Test
    void shouldFailTheLookupNamingATargetFactoryThatMakesNoDataSource() throws Exception {
        String answer = queryInTomcat(BlockingDataSourceTest::lookUp, h2Resource(MakesAString.class.getName()),
                new ClassState[1]);

        assertThat(answer).contains("resource orders")
                .contains("fairsliceTargetFactory=" + MakesAString.class.getName())
                .contains("made a java.lang.String for this resource, not a javax.sql.DataSource");
    }

    @Test
    void shouldFailTheLookupNamingTheTargetFactoryThatCannotBeLoaded() throws Exception {
        String answer = queryInTomcat(BlockingDataSourceTest::lookUp, h2Resource("com.example.NoSuchFactory"),
                new ClassState[1]);

        assertThat(answer).contains("resource orders").contains("fairsliceTargetFactory=com.example.NoSuchFactory")
                .contains("is not a JNDI object factory that can be loaded");
    }

    private static ContextResource h2Resource(String targetFactory) {
        ContextResource r = new ContextResource();
        r.setName("jdbc/orders");
        r.setType("org.h2.jdbcx.JdbcDataSource"); // what H2's factory makes resources of
        r.setProperty("factory", BlockingDataSourceFactory.class.getName());
        r.setProperty(BlockingDataSourceFactory.TARGET, targetFactory);
        r.setProperty("url", "jdbc:h2:mem:blocking-data-source;DB_CLOSE_DELAY=-1");
        r.setProperty("user", "");
        r.setProperty("password", "");
        r.setProperty("description", "orders"); // H2's factory reads all five
        r.setProperty("loginTimeout", "0");
        return r;
    }

    private static DataSource lookUp() throws NamingException {
        return (DataSource) new InitialContext().lookup("java:comp/env/jdbc/orders");
    }

    /** A pool (AutoCloseable) is closed with its wrapper: Tomcat closes a resource so when its application stops. */
    @Test
    void shouldCloseTheDataSourceItWrapsWhenThatCanBeClosed() throws Exception {
        List<String> calls = new ArrayList<>();
        DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class, AutoCloseable.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    return null;
                });
        try (AutoCloseable wrapped = (AutoCloseable) BlockingDataSource.wrap(pool)) {
            assertThat(calls).isEmpty();
        }
        assertThat(calls).containsExactly("close");
        ((AutoCloseable) BlockingDataSource.wrap(database)).close(); // H2's plain data source: nothing to close
    }

    /**
     * A pool's JDBC 4.3 connection builder is passed on, its connections wrapped as getConnection()'s are (the
     * wrapper refused it: SQLFeatureNotSupportedException, the interface's default).
     */
    @Test
    void shouldPassTheConnectionBuilderOnAndWrapWhatItBuilds() throws Exception {
        List<String> asked = new ArrayList<>();
        ConnectionBuilder driverBuilder = (ConnectionBuilder) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ConnectionBuilder.class}, (proxy, m, args) -> {
                    asked.add(m.getName() + (args == null ? "" : " " + args[0]));
                    return m.getName().equals("build") ? database.getConnection() : proxy;
                });
        DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, m, args) -> m.getName().equals("createConnectionBuilder")
                        ? driverBuilder : null);

        try (Connection c = BlockingDataSource.wrap(pool).createConnectionBuilder().user("sa").password("")
                .build(); Statement s = c.createStatement()) {
            assertThat(Proxy.isProxyClass(c.getClass())).as("wrapped, its calls declared").isTrue();
            assertThat(c.unwrap(JdbcConnection.class)).isInstanceOf(JdbcConnection.class);
            assertThat(s.getConnection()).isSameAs(c);
        }
        assertThat(asked).containsExactly("user sa", "password ", "build");
    }

    @Test
    void shouldBehaveAsTheDriversObjectsOutsideARequest() throws Exception {
        DataSource wrapped = BlockingDataSource.wrap(database);
        assertThat(BlockingDataSource.wrap(wrapped)).as("wrapped once").isSameAs(wrapped);
        assertThat(wrapped.isWrapperFor(JdbcDataSource.class)).isTrue();
        assertThat(wrapped.unwrap(JdbcDataSource.class)).isSameAs(database);
        try (Connection c = wrapped.getConnection(); Statement s = c.createStatement()) {
            assertThat(c.unwrap(JdbcConnection.class)).isInstanceOf(JdbcConnection.class);
            assertThat(c.isWrapperFor(JdbcConnection.class)).isTrue();
            assertThat(s.getConnection()).as("the connection it came from").isSameAs(c);
            try (Connection other = wrapped.getConnection()) {
                assertThat(c).isEqualTo(c).isNotEqualTo(other);
            }
            s.executeUpdate("MERGE INTO orders KEY (id) VALUES (7)");
            try (ResultSet rows = s.executeQuery("SELECT COUNT(*) FROM orders WHERE id = 7")) {
                rows.next();
                assertThat(rows.getInt(1)).isEqualTo(1);
            }
            assertThatThrownBy(() -> s.executeQuery("SELECT nothing FROM nowhere"))
                    .as("the driver's own exception, not a proxy's").isInstanceOf(SQLException.class)
                    .hasMessageContaining("NOWHERE");
        }
    }
}
