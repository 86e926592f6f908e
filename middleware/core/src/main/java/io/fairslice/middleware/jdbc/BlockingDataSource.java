package io.fairslice.middleware.jdbc;

import io.fairslice.middleware.Fairslice;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ConnectionBuilder;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.ShardingKey;
import java.sql.Statement;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source whose JDBC calls that wait for the database are declared blocking ({@link Fairslice#blocking()}): its
 * {@code getConnection} (and its connection builder's {@code build}), a connection's {@code commit} and
 * {@code rollback}, and the {@code execute*} methods of the statements its connections create. While a request waits
 * in one of them, its run slot serves other requests, given up at once rather than found after two looks at the
 * request's thread. Unlike the optional {@code BlockingCallAspect}, it needs no weaving and reaches every user of the
 * data source: an ORM, a JDBC template, the application's own code.
 *
 * <pre>{@code
 * DataSource pool = new HikariDataSource(config);
 * DataSource dataSource = BlockingDataSource.wrap(pool); // hand this one to the application
 * }</pre>
 *
 * <p>Closing it closes the wrapped data source when that can be closed (a pool). Connections and statements are
 * dynamic proxies of the driver's: every other call goes straight to the driver's
 * object, and {@code unwrap} and {@code isWrapperFor} reach it too. A statement's {@code getConnection()} answers the
 * proxy its statement came from; a result set's {@code getStatement()} and the metadata's {@code getConnection()}
 * answer the driver's own objects (result sets and metadata are not wrapped, to keep {@code ResultSet.next()} a direct
 * call), whose calls are not declared: the scheduler then finds such a wait by looking at the request's thread. Outside
 * a request served through fairslice's filter a declaration does nothing; under the policies other than {@code share}
 * it only marks the call's time as no CPU ({@link io.fairslice.middleware.Fairslice#blocking}).
 * {@code ResultSet.next()} is not declared: it mostly reads rows already fetched.
 */
public final class BlockingDataSource implements DataSource, AutoCloseable {

    private final DataSource target;

    private BlockingDataSource(DataSource target) {
        this.target = target;
    }

    /** The data source {@code target} with its waits declared; {@code target} itself if it is one already. */
    public static DataSource wrap(DataSource target) {
        Objects.requireNonNull(target, "the data source to wrap");
        return target instanceof BlockingDataSource ? target : new BlockingDataSource(target);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return declared(target::getConnection);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return declared(() -> target.getConnection(username, password));
    }

    /**
     * The wrapped data source's builder (JDBC 4.3), whose connections are declared as {@link #getConnection()}'s are;
     * a data source that has none refuses as it would unwrapped.
     */
    @Override
    public ConnectionBuilder createConnectionBuilder() throws SQLException {
        ConnectionBuilder builder = target.createConnectionBuilder();
        return new ConnectionBuilder() {
            @Override
            public ConnectionBuilder user(String username) {
                builder.user(username);
                return this;
            }

            @Override
            public ConnectionBuilder password(String password) {
                builder.password(password);
                return this;
            }

            @Override
            public ConnectionBuilder shardingKey(ShardingKey shardingKey) {
                builder.shardingKey(shardingKey);
                return this;
            }

            @Override
            public ConnectionBuilder superShardingKey(ShardingKey superShardingKey) {
                builder.superShardingKey(superShardingKey);
                return this;
            }

            @Override
            public Connection build() throws SQLException {
                return declared(builder::build);
            }
        };
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    /**
     * Closes the wrapped data source if it can be closed (a pool): Tomcat calls this when a resource's application
     * stops, as it would on the pool itself ({@code closeMethod} defaults to close for an AutoCloseable data source).
     */
    @Override
    public void close() throws Exception {
        if (target instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Override
    public String toString() {
        return "BlockingDataSource[" + target + "]";
    }

    /** How a connection is opened: the data source's two getConnection calls, a builder's build. */
    @FunctionalInterface
    private interface Opening {
        Connection open() throws SQLException;
    }

    /** The connection {@code opening} opens, opened as a declared blocking call and wrapped to declare its waits. */
    private static Connection declared(Opening opening) throws SQLException {
        Connection connection;
        try (Fairslice.Blocking ignored = Fairslice.blocking()) {
            connection = opening.open();
        }
        if (connection == null) {
            return null;
        }
        return (Connection) Proxy.newProxyInstance(BlockingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new Declaring(connection, null));
    }

    /**
     * The handler of a connection proxy ({@code connection} null) or of a statement proxy (then {@code connection} is
     * the proxy it came from): declares the waiting calls, wraps the statements a connection creates.
     */
    private static final class Declaring implements InvocationHandler {

        private final Object target;
        private final Connection connection;

        Declaring(Object target, Connection connection) {
            this.target = target;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            switch (name) {
                case "equals":
                    return args[0] == proxy;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "blocking-declared " + target;
                case "unwrap":
                    return ((Class<?>) args[0]).isInstance(proxy) ? proxy : call(method, args);
                case "isWrapperFor":
                    return ((Class<?>) args[0]).isInstance(proxy) || (Boolean) call(method, args);
                default:
                    break;
            }
            if (connection != null && name.equals("getConnection") && method.getParameterCount() == 0) {
                return connection;
            }
            if (waits(name)) {
                try (Fairslice.Blocking ignored = Fairslice.blocking()) {
                    return call(method, args);
                }
            }
            Object result = call(method, args);
            if (connection == null && result instanceof Statement && Statement.class.isAssignableFrom(
                    method.getReturnType())) {
                return Proxy.newProxyInstance(BlockingDataSource.class.getClassLoader(),
                        new Class<?>[] {method.getReturnType()}, new Declaring(result, (Connection) proxy));
            }
            return result;
        }

        /** The calls that wait for the database: a statement's executions, a connection's commit and rollback. */
        private boolean waits(String name) {
            return connection != null ? name.startsWith("execute")
                    : name.equals("commit") || name.equals("rollback");
        }

        private Object call(Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
