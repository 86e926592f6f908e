/**
 * Yield points woven into the application's own code by the AspectJ load-time weaver.
 *
 * <p>{@link io.fairslice.middleware.weaving.YieldPointAspect} calls
 * {@link io.fairslice.middleware.Fairslice#yieldPoint()} at the start of every method of the classes in the weaving
 * scope. The scope is the operator's {@code <include within="..."/>} list in an {@code aop.xml} that the weaver
 * merges with the one shipped in this jar (which declares the aspect, keeps the weaver quiet and includes only the
 * aspect, so that the default scope is empty). {@link io.fairslice.middleware.weaving.WeavingScope} reads that
 * configuration the way the weaver does and rejects what the weaver would silently ignore (unknown elements,
 * patterns that match no class, includes that reach into the JDK or the container);
 * {@link io.fairslice.middleware.weaving.WovenClasses} counts what was actually woven, so that weaving nothing is
 * visible. docs/weaving.md is the operator's guide.
 */
package io.fairslice.middleware.weaving;
