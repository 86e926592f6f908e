package io.fairslice.middleware.jdbc;

import java.util.Hashtable;
import javax.naming.Context;
import javax.naming.Name;
import javax.naming.NamingException;
import javax.naming.RefAddr;
import javax.naming.Reference;
import javax.naming.spi.ObjectFactory;
import javax.sql.DataSource;

/**
 * A JNDI object factory for Tomcat's {@code <Resource>} elements: it has the data source made by another factory (by
 * default Tomcat's connection pool, {@value #DEFAULT_TARGET}) and hands out that data source wrapped in a
 * {@link BlockingDataSource}, so that an application that looks its data source up declares its waits for the
 * database without a change to its code:
 *
 * <pre>{@code
 * <Resource name="jdbc/shop" auth="Container" type="javax.sql.DataSource"
 *           factory="io.fairslice.middleware.jdbc.BlockingDataSourceFactory"
 *           driverClassName="org.postgresql.Driver" url="jdbc:postgresql://db/shop" ... />
 * }</pre>
 *
 * <p>Every attribute of the resource goes to the wrapped factory, as it would without this one. The attribute
 * {@value #TARGET} names another factory (a pool's own, HikariCP's {@code com.zaxxer.hikari.HikariJNDIFactory}), to be
 * found by the web application's class loader. A factory that cannot be loaded, or that makes no data source, fails
 * the lookup with a message naming the attribute and its value.
 */
public final class BlockingDataSourceFactory implements ObjectFactory {

    /** The resource attribute that names the factory whose data source is wrapped. */
    public static final String TARGET = "fairsliceTargetFactory";
    /** Tomcat's own pool (lib/tomcat-dbcp.jar): the factory a {@code javax.sql.DataSource} resource has by default. */
    public static final String DEFAULT_TARGET = "org.apache.tomcat.dbcp.dbcp2.BasicDataSourceFactory";

    @Override
    public Object getObjectInstance(Object obj, Name name, Context nameCtx, Hashtable<?, ?> environment)
            throws Exception {
        if (!(obj instanceof Reference reference)) {
            return null; // not a resource reference: not ours to make (JNDI asks every factory it knows)
        }
        RefAddr given = reference.get(TARGET);
        String target = given == null ? DEFAULT_TARGET : String.valueOf(given.getContent()).strip();
        ObjectFactory factory;
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> type = Class.forName(target, true, loader != null ? loader : getClass().getClassLoader());
            factory = (ObjectFactory) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw naming(name, TARGET + "=" + target + " is not a JNDI object factory that can be loaded and made ("
                    + e + ")" + (given == null ? "; it is the default: name the pool's factory in " + TARGET : ""), e);
        }
        Object made = factory.getObjectInstance(obj, name, nameCtx, environment);
        if (!(made instanceof DataSource dataSource)) {
            throw naming(name, TARGET + "=" + target + " made " + (made == null ? "nothing" : "a "
                    + made.getClass().getName()) + " for this resource, not a javax.sql.DataSource", null);
        }
        return BlockingDataSource.wrap(dataSource);
    }

    private static NamingException naming(Name name, String message, Throwable cause) {
        NamingException e = new NamingException("fairslice: resource " + name + ": " + message);
        e.setRootCause(cause);
        return e;
    }
}
