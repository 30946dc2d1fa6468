//! A studio in this process: a store in a test's folder with the skills of a folder imported
//! into it (as `skillpath import` imports them: the store owns them, so no folder sync replaces
//! what the studio writes), API keys made in it, and the server with the studio's pages beside
//! `/mcp`, listening on a free loopback port.

use std::path::Path;
use std::sync::Arc;

use skillpath_folders::folder::read_folders;
use skillpath_folders::sources::FolderSources;
use skillpath_model::Change;
use skillpath_server::{HttpOptions, KeyPolicy, ServerOptions, SkillServer};
use skillpath_store::keys::Role;
use skillpath_store::{SqliteStore, Store};
use skillpath_studio::StudioOptions;

/// A studio being served; it stops with the test.
pub(crate) struct Studio {
    /// Where it listens (`127.0.0.1:<port>`).
    pub(crate) address: String,
    _runtime: tokio::runtime::Runtime,
}

impl Studio {
    /// The studio over the skills in `skills`, imported into a new store in `work`, with a key
    /// made for each of `keys` (name and role) before it starts; with `keys` the policy, as
    /// `serve --http` (`--auth required`) sets it: where keys are required, authors' writes
    /// are reviewed. The keys made, in the order asked.
    pub(crate) fn start(
        work: &Path,
        skills: &Path,
        policy: KeyPolicy,
        keys: &[(&str, Role)],
    ) -> (Studio, Vec<String>) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let (address, made) = runtime.block_on(async {
            let store: Arc<dyn Store> =
                Arc::new(SqliteStore::open(&work.join("store.db")).expect("a new store"));
            import(store.as_ref(), skills).await;
            let mut made = Vec::new();
            // Made as `skillpath keys create` makes them: each for a person of its name, a
            // member of `@global` with its role.
            let owner = skillpath_app::Caller::owner("test".to_owned());
            let app: skillpath_app::App =
                skillpath_app::App::for_command(Arc::clone(&store), Default::default());
            let permit = app
                .may(&owner, skillpath_app::Operation::CreateApiKey)
                .expect("the owner makes keys");
            for (name, role) in keys {
                let request = skillpath_app::KeyRequest {
                    role: Some(*role),
                    ..Default::default()
                };
                let created = app
                    .create_user_key(&permit, name, request)
                    .await
                    .expect("a key");
                made.push(created.key);
            }
            let options = ServerOptions {
                review: policy == KeyPolicy::Required,
                ..ServerOptions::default()
            };
            let server = SkillServer::new(store, options).await.expect("a server");
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a loopback port");
            let address = listener.local_addr().expect("its address").to_string();
            let mut http = HttpOptions {
                keys: policy,
                ..HttpOptions::default()
            };
            http.pages = Some(skillpath_studio::routes(
                server.clone(),
                StudioOptions {
                    keys: policy,
                    allowed_hosts: http.allowed_hosts.clone(),
                    sign_in: None,
                },
            ));
            tokio::spawn(skillpath_server::serve_http(
                server,
                listener,
                http,
                std::future::pending(),
            ));
            (address, made)
        });
        let studio = Studio {
            address,
            _runtime: runtime,
        };
        (studio, made)
    }
}

/// The skill folders under `skills` imported into `store`, as `skillpath import` does.
async fn import(store: &dyn Store, skills: &Path) {
    let located = FolderSources {
        discover: None,
        roots: vec![skills.to_path_buf()],
    }
    .locate();
    let read = read_folders(located.folders, &[], &|_| {});
    assert!(read.skipped.is_empty(), "every test skill loads");
    let change = Change {
        author: "test".to_owned(),
        message: "import".to_owned(),
    };
    store
        .import_folders(read.items, change)
        .await
        .expect("the skills imported");
}
