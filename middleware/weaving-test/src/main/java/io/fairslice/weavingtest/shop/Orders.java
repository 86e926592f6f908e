package io.fairslice.weavingtest.shop;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The shop's orders, kept in a database reached through JDBC: the calls that the optional {@code BlockingCallAspect}
 * declares blocking (a data source's {@code getConnection}, a statement's {@code executeQuery}) are made here, in
 * woven code.
 */
public final class Orders {

    private final DataSource database;

    public Orders(DataSource database) {
        this.database = database;
    }

    /** The first column of the first row that {@code sql} selects, as text; null when it selects no row. */
    public String first(String sql) throws SQLException {
        try (Connection connection = database.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }
}
