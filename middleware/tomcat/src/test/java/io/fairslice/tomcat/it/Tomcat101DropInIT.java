package io.fairslice.tomcat.it;

/** The drop-in scenario on Tomcat 10.1 (property tomcat10.version of the root pom). */
class Tomcat101DropInIT extends TomcatDropInScenario {

    @Override
    int versionIndex() {
        return 1;
    }
}
