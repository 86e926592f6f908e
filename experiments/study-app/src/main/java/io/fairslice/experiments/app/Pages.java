package io.fairslice.experiments.app;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;

/** The study pages' small HTML frame. */
final class Pages {

    private Pages() {
    }

    static void html(HttpServletResponse response, String title, String body) throws IOException {
        response.setContentType("text/html;charset=UTF-8");
        response.setHeader("Cache-Control", "no-store");
        PrintWriter out = response.getWriter();
        out.print("<!DOCTYPE html><html><head><title>");
        out.print(title);
        out.print("</title></head><body>");
        out.print(body);
        out.print("</body></html>");
    }
}
