//! One daemon per fuzzing process, in-process: `AppState::open` over a scratch folder, the
//! real router, driven with `warp::test::request` (no sockets). It holds the translations
//! of the hostile fixture sheet, an API key and an admin key, and three file records with
//! their objects, so that every route gets past its 401/404/503 to the interesting part.

use std::sync::{Arc, OnceLock};

use depot::files::writes::{Content, Uploads};
use depot::files::{NewFileRecord, Permission};
use depot::server::AppState;
use warp::filters::BoxedFilter;
use warp::http::{HeaderName, HeaderValue, Method, Uri};
use warp::reply::Response;

pub const ADMIN_KEY: &str = "fuzz-admin-key";
pub const API_KEY: &str = "fuzz-api-key";
/// What `Host` the signed URLs name (the configured listen address: nothing is bound).
pub const HOST: &str = "127.0.0.1:3000";
pub const BUCKET: &str = "fuzz-bucket";

/// The records the daemon starts with: key, permission, content.
/// (Keys in the form depot makes them: main's record validation accepts only those.)
pub const SEEDED: [(&str, Permission, &[u8]); 3] = [
    (
        "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e5f-original",
        Permission::Public,
        b"0123456789abcdef",
    ),
    (
        "6f1d2c3b-4a59-4e8f-a7b6-c5d4e3f2a1b0-private_copy",
        Permission::Private,
        b"\x00\xff private bytes",
    ),
    (
        "a0a0a0a0-b1b1-4c2c-8d3d-e4e4e4e4e4e4",
        Permission::Public,
        b"",
    ),
];

pub struct App {
    runtime: tokio::runtime::Runtime,
    router: BoxedFilter<(Response,)>,
    pub state: Arc<AppState>,
}

/// The process's daemon, opened on first use.
pub fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(open)
}

fn open() -> App {
    let dir = crate::scratch_dir().join("daemon");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("daemon folder");
    let sources = depot::config::Sources {
        toml_path: dir.join("depot.toml"),
        env_file: dir.join(".env.service"),
        process_env: vec![],
        flags: vec![
            (
                "server.data_dir".into(),
                dir.join("data").display().to_string(),
            ),
            ("auth.api_keys".into(), API_KEY.into()),
            ("auth.admin_keys".into(), ADMIN_KEY.into()),
            ("producer.enabled".into(), "false".into()),
            // Small enough that the fuzzer can reach it.
            ("server.body_limit_bytes".into(), "65536".into()),
        ],
    };
    let loaded = depot::config::load(&sources).expect("configuration loads");
    let handle = depot::config::ConfigHandle::new(sources, loaded);
    // A runtime with its own worker: `AppState::open` blocks on the database pool's
    // opening through the current runtime's handle, as the daemon's blocking threads do.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let state = {
        let _context = runtime.enter();
        Arc::new(AppState::open(handle).expect("stores open"))
    };

    let sheet = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/sheets/hostile.sheet.json");
    let rows = depot::sheets::local::read_grid(&sheet, None).expect("fixture sheet reads");
    let document = depot::markup::convert(rows).expect("fixture sheet converts");
    state
        .translations
        .put(document)
        .expect("translations stored");

    for (key, permission, content) in SEEDED {
        runtime
            .block_on(seed(&state, key, permission, content))
            .expect("seeded record stored");
    }
    // An event stream lasts until the daemon shuts down, and `warp::test` reads a body to
    // its end: closed, a stream answers its headers and ends at once.
    state.translations.close_events();
    let router = depot::server::router(state.clone());
    App {
        runtime,
        router,
        state,
    }
}

/// Stores one of the `SEEDED` records and its object.
async fn seed(
    state: &AppState,
    key: &str,
    permission: Permission,
    content: &[u8],
) -> Result<(), depot::files::writes::WriteError> {
    let objects = state
        .objects
        .as_ref()
        .expect("embedded store on")
        .store
        .clone();
    let settings = state.config.settings();
    let uploads = Uploads::new(
        state.files.clone(),
        Some(objects),
        &settings.signing,
        &settings.server.data_dir,
    )?;
    let new = NewFileRecord {
        file_name: key.rsplit('/').next().unwrap_or(key).to_owned(),
        description: "seeded by the fuzz target".into(),
        bucket: BUCKET.into(),
        status: 1,
        file_type: "application/octet-stream".into(),
        permission,
        key: key.into(),
        created_at: None,
        size: None,
        sha256: None,
    };
    let mut spool = uploads.spool().await?;
    spool.write(content).await?;
    uploads
        .store(new, Content::Spooled(spool.finish().await?))
        .await
        .map(|_| ())
}

/// A request as the fuzz targets describe it; `send` drops what no HTTP server would pass
/// on (an unparsable URI, method or header: hyper refuses those before the router).
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path_and_query: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: warp::http::HeaderMap,
    pub body: Vec<u8>,
}

impl App {
    /// Answers `request` through the router, or `None` when hyper would have refused it.
    pub fn send(&self, request: &Request) -> Option<Reply> {
        let method = Method::from_bytes(request.method.as_bytes()).ok()?;
        let uri = Uri::try_from(request.path_and_query.as_str()).ok()?;
        uri.path_and_query()?;
        let mut builder = warp::test::request()
            .method(method.as_str())
            .path(&uri.to_string());
        for (name, value) in &request.headers {
            let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
            let value = HeaderValue::from_bytes(value).ok()?;
            builder = builder.header(name, value);
        }
        let builder = builder.body(&request.body);
        let response = self.runtime.block_on(builder.reply(&self.router));
        let status = response.status().as_u16();
        if trace() {
            eprintln!("{status} {} {}", request.method, request.path_and_query);
        }
        assert_ne!(
            status,
            500,
            "500 for {request:?}: {}",
            String::from_utf8_lossy(response.body())
        );
        Some(Reply {
            status,
            headers: response.headers().clone(),
            body: response.body().to_vec(),
        })
    }

    /// GET `/file?key=` with the admin key: the record's signed URL. A seeded record that
    /// a fuzzed `DELETE` removed is stored again first.
    pub fn signed_url(&self, key: &str) -> Option<String> {
        let get = || {
            self.send(&Request {
                method: "GET".into(),
                path_and_query: format!("/file?key={}", depot::signing::aws_encode(key, false)),
                headers: vec![("authorization".into(), bearer(ADMIN_KEY))],
                body: Vec::new(),
            })
        };
        let mut reply = get()?;
        if reply.status == 404
            && let Some((key, permission, content)) = SEEDED.iter().find(|(k, _, _)| *k == key)
        {
            self.runtime
                .block_on(seed(&self.state, key, *permission, content))
                .expect("seeded record stored again");
            reply = get()?;
        }
        assert_eq!(reply.status, 200, "GET /file of a stored key: {reply:?}");
        let record: serde_json::Value =
            serde_json::from_slice(&reply.body).expect("GET /file answers JSON");
        Some(record["signedUrl"].as_str().expect("signedUrl").to_owned())
    }

    /// Deletes a record a fuzzed upload created, so the scratch store stays small.
    pub fn delete(&self, key: &str) -> Option<Reply> {
        self.send(&Request {
            method: "DELETE".into(),
            path_and_query: format!("/file?key={}", depot::signing::aws_encode(key, false)),
            headers: vec![("authorization".into(), bearer(ADMIN_KEY))],
            body: Vec::new(),
        })
    }
}

/// `DEPOT_FUZZ_TRACE=1`: print every request's status, to see what a corpus reaches
/// (`cargo fuzz run -s none router fuzz/corpus/router -- -runs=0`).
fn trace() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("DEPOT_FUZZ_TRACE").is_some())
}

pub fn bearer(key: &str) -> Vec<u8> {
    format!("Bearer {key}").into_bytes()
}

/// The path and query of a signed URL (`http://host/objects/...?X-Amz-...`).
pub fn path_and_query(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map_or("/", |start| &after_scheme[start..])
}
