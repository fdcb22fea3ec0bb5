//! `cargo run --example actix_demo -- [--dir PATH] [--stdio | --mcp-stdio]` (port from `PORT`, default 3000): the
//! demo app on actix-web, with browser-agent added in one line.
#![forbid(unsafe_code)]
#![warn(missing_docs, rust_2018_idioms)]

use std::path::PathBuf;

use actix_web::http::StatusCode;
use actix_web::{guard, web, App, HttpRequest, HttpResponse, HttpServer, Route};
use browser_agent_actix::BrowserAgentMiddleware;
use browser_agent_examples::{cli, demo, static_files};

/// `GET`, and `HEAD` with the same handler (as axum's `get` does).
fn get() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

fn json(status: StatusCode, body: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body.into())
}

async fn add_item(body: web::Bytes) -> HttpResponse {
    match demo::add_item(&body) {
        Ok(items) => json(StatusCode::OK, items),
        Err(error) => json(StatusCode::BAD_REQUEST, error),
    }
}

/// The files of `--dir` (if given), else a 404 page.
async fn files(dir: web::Data<Option<PathBuf>>, req: HttpRequest) -> HttpResponse {
    match dir.as_deref().and_then(|d| static_files::serve(d, req.path())) {
        Some((content_type, body)) => HttpResponse::Ok().content_type(content_type).body(body),
        None => HttpResponse::NotFound()
            .content_type("text/html; charset=utf-8")
            .body(demo::not_found(req.path())),
    }
}

fn main() {
    let options = cli::from_env();
    // Created once, here, outside `HttpServer::new`: every worker shares this state.
    let agent = cli::demo_agent(options.port);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], options.port));
    let banner = cli::banner("actix", options.port, &agent, options.dir.as_deref());
    let dir = web::Data::new(options.dir.clone());
    let result = actix_web::rt::System::new().block_on(async move {
        let workers = agent.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(dir.clone())
                .route(
                    "/",
                    get().to(|| async {
                        HttpResponse::Ok()
                            .content_type("text/html; charset=utf-8")
                            .body(demo::PAGE)
                    }),
                )
                .route("/api/items", get().to(|| async { json(StatusCode::OK, demo::items()) }))
                .route("/api/items", web::post().to(add_item))
                .route(
                    "/api/fail",
                    get().to(|| async { json(StatusCode::INTERNAL_SERVER_ERROR, demo::FAIL) }),
                )
                .default_service(web::to(files))
                // The one line (wrap `Compress::default()` after it, never before).
                .wrap(BrowserAgentMiddleware::new(workers.clone()))
        })
        .bind(addr)
        .map_err(|e| format!("cannot listen on {addr}: {e} (set PORT to use another port)"))?;
        if let Some((hint, bridge)) = cli::stdio_bridge(&agent, &options) {
            // stdout carries the protocol: everything else goes to stderr.
            eprintln!("{banner}{hint}");
            let server = server.disable_signals().run();
            let handle = server.handle();
            let res = tokio::select! {
                res = server => res,
                // stdin closed (or failed): stop serving, as the axum demo does.
                res = bridge => {
                    handle.stop(false).await;
                    res
                }
            };
            res.map_err(|e| format!("error: {e}"))
        } else {
            print!("{banner}");
            // actix stops gracefully on Ctrl-C by itself.
            server.run().await.map_err(|e| format!("error: {e}"))
        }
    });
    if let Err(msg) = result {
        eprintln!("{msg}");
        std::process::exit(1);
    }
}
