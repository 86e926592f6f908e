/**
 * Runtime control through JMX: read a web application's scheduling state and change its policy, shares and quanta.
 * Changes are validated exactly like startup configuration and applied by swapping the immutable configuration.
 */
package io.fairslice.middleware.jmx;
