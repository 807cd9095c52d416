package io.slotkeeper.console;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.CSPHandler;
import io.vertx.ext.web.handler.StaticHandler;
import io.vertx.ext.web.handler.XFrameHandler;

/**
 * The operator console: static pages under {@code /console/}, served from the jar. They carry no
 * data and need no token; every data call the pages make goes to the API with the operator's or
 * client's bearer token, which the API checks as for any other caller.
 */
public final class ConsoleRoutes {

  /** Where the console is served. */
  public static final String PATH = "/console/";

  private ConsoleRoutes() {}

  /** Mounts the console's pages, with their security headers, on the router. */
  public static void mount(Router router) {
    // A regex: the path "/console" would match "/console/" too, and redirect it to itself.
    router.getWithRegex("/console").handler(ctx -> ctx.redirect(PATH));
    router
        .route(PATH + "*")
        // No inline script or style, nothing from another origin, never in a frame.
        .handler(
            CSPHandler.create()
                .setDirective("default-src", "'none'")
                .setDirective("script-src", "'self'")
                .setDirective("style-src", "'self'")
                .setDirective("img-src", "'self'")
                .setDirective("connect-src", "'self'")
                .setDirective("base-uri", "'none'")
                .setDirective("form-action", "'none'")
                .setDirective("frame-ancestors", "'none'"))
        .handler(XFrameHandler.create(XFrameHandler.DENY))
        .handler(ConsoleRoutes::headers)
        .handler(
            StaticHandler.create("console")
                .setIndexPage("index.html")
                .setDefaultContentEncoding("UTF-8")
                .setCachingEnabled(false));
  }

  private static void headers(RoutingContext ctx) {
    ctx.response()
        // The pages change with the jar: the browser asks again rather than guess.
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("Referrer-Policy", "no-referrer");
    ctx.next();
  }
}
