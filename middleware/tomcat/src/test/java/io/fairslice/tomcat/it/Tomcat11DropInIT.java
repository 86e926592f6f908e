package io.fairslice.tomcat.it;

/** The drop-in scenario on Tomcat 11 (property tomcat.version of the root pom). */
class Tomcat11DropInIT extends TomcatDropInScenario {

    @Override
    int versionIndex() {
        return 0;
    }
}
