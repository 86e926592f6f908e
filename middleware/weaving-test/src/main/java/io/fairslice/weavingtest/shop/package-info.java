/**
 * A small stand-in application for the weaving tests: ordinary classes with loops, recursion, records and an
 * interface, in a package of their own that the tests name as the weaving scope.
 */
package io.fairslice.weavingtest.shop;
