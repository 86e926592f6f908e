/**
 * {@code fairslice install}: puts the bundle into a Tomcat instance ({@code CATALINA_BASE}), updates it, or removes
 * it. {@link io.fairslice.tomcat.install.Installer} is the command line,
 * {@link io.fairslice.tomcat.install.Installation} the work; {@link io.fairslice.tomcat.install.TomcatBase} refuses
 * directories that are not a Tomcat 10.1+,
 * {@link io.fairslice.tomcat.install.MarkedBlock} edits only fairslice's block in the operator's setenv scripts, and
 * {@link io.fairslice.tomcat.install.InstallRecord} remembers what was added so that uninstall removes exactly that.
 * Uses only the JDK: it runs before anything else is on the class path.
 */
package io.fairslice.tomcat.install;
