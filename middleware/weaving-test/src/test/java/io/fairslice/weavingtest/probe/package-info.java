/** Test instruments for the weaving tests. */
package io.fairslice.weavingtest.probe;
