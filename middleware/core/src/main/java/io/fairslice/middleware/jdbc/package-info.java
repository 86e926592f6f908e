/**
 * JDBC without weaving: {@link io.fairslice.middleware.jdbc.BlockingDataSource} declares the calls that wait for the
 * database blocking, for every user of a data source (an ORM, a JDBC template, the application's own code).
 */
package io.fairslice.middleware.jdbc;
