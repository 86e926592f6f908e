/**
 * Extension points of the middleware for other fairslice modules and for users: {@link
 * io.fairslice.middleware.spi.RequestListener} hears which request class each thread serves.
 */
package io.fairslice.middleware.spi;
