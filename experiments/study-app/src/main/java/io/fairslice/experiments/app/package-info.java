/**
 * The study's web application, after the 2005 report on how operating systems degrade an overloaded Tomcat:
 * a light page (naive Fibonacci), a second light page (trial-division primes) and a heavy page (a generated XML
 * catalogue read into a DOM tree and walked). {@link io.fairslice.experiments.app.StudyApplication} registers
 * them; the same classes run in the WAR and in the embedded server.
 */
package io.fairslice.experiments.app;
