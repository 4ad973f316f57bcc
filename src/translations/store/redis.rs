//! The Redis backend, for several nodes on one shared store (SPEC §7). A version is written
//! under its own key; one Lua step then makes it current, keeps the last few and publishes
//! its id, so a reader sees the old or the new version, never a mix, and a writer killed
//! half-way leaves the current version as it was. Nodes keep the document in memory and
//! follow the store (`translations/follow.rs`); the producer lease uses the same connection.

use super::{
    ChannelBook, PutOutcome, StoreError, StoreHealth, StoredDocument, Swap, TranslationStore,
};
use crate::config::settings::Translations as TranslationSettings;
use crate::translations::versions::{History, VersionSummary, is_version_id};
use redis::aio::{ConnectionManager, ConnectionManagerConfig, PubSubStream};
use redis::{FromRedisValue, Script, ScriptInvocation};
use std::future::Future;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Duration;

/// A connection attempt to an unreachable host gives up after this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Small commands (the current id, the lease) fail after this, so a hung Redis is noticed
/// within the follower's next poll or two.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(3);
/// A whole document may be tens of megabytes.
const TRANSFER_TIMEOUT: Duration = Duration::from_secs(120);
/// A document written by a producer that died before making it current expires after this.
const ORPHAN_TTL_SECS: u64 = 3600;

/// Makes a stored document current in one atomic step: checks it is there, makes it
/// current (unless it already is), records its summary, keeps the newest `keep` versions
/// (documents and summaries) and those a channel pins, publishes. A version stored again
/// moves to the front.
/// KEYS: current id, versions list, the document, summaries hash, pinned set.
/// ARGV: version, channel, keep, doc prefix, summary JSON.
static MAKE_CURRENT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[3]) == 0 then
  return redis.error_reply('the document of version ' .. ARGV[1] .. ' vanished before it was made current')
end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 0 end
redis.call('PERSIST', KEYS[3])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
redis.call('LREM', KEYS[2], 0, ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[1])
local keep = tonumber(ARGV[3])
for _, old in ipairs(redis.call('LRANGE', KEYS[2], keep, -1)) do
  if old ~= ARGV[1] and redis.call('SISMEMBER', KEYS[5], old) == 0 then
    redis.call('DEL', ARGV[4] .. old)
    redis.call('HDEL', KEYS[4], old)
    redis.call('LREM', KEYS[2], 0, old)
  end
end
redis.call('PUBLISH', ARGV[2], ARGV[1])
return 1
",
    )
});

/// Replaces the channels in one atomic step: checks the revision the new book was made
/// from and that every version it pins is kept, writes the book, its revision and the
/// pinned set (which `MAKE_CURRENT` spares), announces the new revision.
/// KEYS: channels, revision, pinned set. ARGV: expected revision, book JSON, new revision,
/// doc prefix, announcement channel, the pinned versions.
/// Answers `done`, `stale`, or `missing:<version>`.
static SWAP_CHANNELS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return 'stale' end
for i = 6, #ARGV do
  if redis.call('EXISTS', ARGV[4] .. ARGV[i]) == 0 then return 'missing:' .. ARGV[i] end
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
redis.call('DEL', KEYS[3])
for i = 6, #ARGV do redis.call('SADD', KEYS[3], ARGV[i]) end
redis.call('PUBLISH', ARGV[5], ARGV[3])
return 'done'
",
    )
});

pub struct RedisStore {
    client: redis::Client,
    /// Multiplexed, reconnecting; created lazily so that a node starts while Redis is down.
    conn: ConnectionManager,
    prefix: String,
    /// The URL as messages and `/health` show it (`redact::url`: host and port).
    shown_url: String,
    /// The URL itself, to scrub from the texts of the client's errors.
    url: crate::secret::Secret,
    /// Blocking trait methods run their async work on the runtime that opened the store.
    runtime: tokio::runtime::Handle,
    health: Mutex<(bool, Option<String>)>,
}

impl RedisStore {
    /// Prepares the client; no connection is made yet (the first command makes it), so
    /// opening succeeds while Redis is down. Needs a tokio runtime (blocking callers inside
    /// one, e.g. `spawn_blocking`, are fine).
    pub fn open(settings: &TranslationSettings) -> Result<RedisStore, StoreError> {
        let shown_url = crate::redact::url(settings.redis_url.expose());
        let open_error = |reason: String| StoreError::Open {
            path: shown_url.clone(),
            reason,
        };
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| open_error("the Redis store needs the async runtime".into()))?;
        // rediss:// uses rustls with the process-wide ring provider.
        crate::tls::install_tls_provider();
        let client = redis::Client::open(settings.redis_url.expose()).map_err(|e| {
            let reason = crate::redact::scrub(&e.to_string(), settings.redis_url.expose());
            open_error(format!("not a valid Redis URL ({reason})"))
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(COMMAND_TIMEOUT))
            // One attempt per command: the follower and the producer retry with their own
            // backoff and report every failure. Small commands only (see `transfer`).
            .set_number_of_retries(0);
        let conn = {
            let _context = runtime.enter();
            ConnectionManager::new_lazy_with_config(client.clone(), config)
                .map_err(|e| open_error(e.to_string()))?
        };
        Ok(RedisStore {
            client,
            conn,
            prefix: settings.redis_prefix.clone(),
            shown_url,
            url: settings.redis_url.clone(),
            runtime,
            health: Mutex::new((true, None)),
        })
    }

    /// A key (or channel) name under the configured prefix.
    pub fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn doc_key(&self, version: &str) -> String {
        self.key(&format!("doc:{version}"))
    }

    /// The channel on which every new current version's id is published.
    pub fn channel(&self) -> String {
        self.key("events")
    }

    /// The announcement channel of every new revision of the channels (SPEC §14).
    pub fn channel_moves(&self) -> String {
        self.key("channel-moves")
    }

    /// The URL as messages show it (`redact::url`).
    pub fn shown_url(&self) -> &str {
        &self.shown_url
    }

    /// Records the outcome of an operation for `/health` and turns a failure into the
    /// store's error.
    fn track<T>(&self, result: Result<T, String>) -> Result<T, StoreError> {
        let mut health = self.health.lock().unwrap_or_else(PoisonError::into_inner);
        match result {
            Ok(value) => {
                *health = (true, None);
                Ok(value)
            }
            Err(reason) => {
                let error = StoreError::Unreachable {
                    store: format!("Redis at {}", self.shown_url),
                    reason: crate::redact::scrub(&reason, self.url.expose()),
                };
                *health = (false, Some(error.to_string()));
                Err(error)
            }
        }
    }

    /// Runs one operation against Redis within `limit`, tracking the outcome.
    async fn within<T, F>(&self, limit: Duration, operation: F) -> Result<T, StoreError>
    where
        F: Future<Output = redis::RedisResult<T>>,
    {
        let result = match tokio::time::timeout(limit, operation).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "no answer within {} s",
                limit.as_secs_f64().round()
            )),
        };
        self.track(result)
    }

    /// One command.
    pub async fn query<T: FromRedisValue>(
        &self,
        cmd: &redis::Cmd,
        limit: Duration,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        self.within(limit, cmd.query_async(&mut conn)).await
    }

    /// One Lua script.
    pub async fn invoke<T: FromRedisValue>(
        &self,
        invocation: &ScriptInvocation<'_>,
        limit: Duration,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        self.within(limit, invocation.invoke_async(&mut conn)).await
    }

    /// The id of the current version, if one was ever stored.
    pub async fn current_version(&self) -> Result<Option<String>, StoreError> {
        self.query(redis::cmd("GET").arg(self.key("current")), COMMAND_TIMEOUT)
            .await
    }

    /// Runs one command that carries a whole document on a connection of its own, closed
    /// right after: a connection keeps its read buffer as large as the largest reply it
    /// ever read, which on the shared connection would keep a second copy of the document's
    /// size in every node for good.
    async fn transfer<T: FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StoreError> {
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(TRANSFER_TIMEOUT));
        let client = self.client.clone();
        self.within(TRANSFER_TIMEOUT, async move {
            let mut conn = client
                .get_multiplexed_async_connection_with_config(&config)
                .await?;
            cmd.query_async(&mut conn).await
        })
        .await
    }

    /// The stored bytes of `version`, if Redis still keeps them.
    pub async fn fetch(&self, version: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.transfer(redis::cmd("GET").arg(self.doc_key(version)))
            .await
    }

    /// Decodes fetched bytes (CPU work: a blocking thread for big documents) and checks
    /// they are the version they were stored as.
    pub fn decode(version: &str, bytes: &[u8]) -> Result<StoredDocument, StoreError> {
        let stored = super::decode(bytes)?;
        if stored.version != version {
            return Err(StoreError::Corrupt(format!(
                "the document stored as version {version} says it is version {}",
                stored.version
            )));
        }
        Ok(stored)
    }

    /// The current document, read whole from Redis. A version trimmed between reading its
    /// id and its document (a newer one was made current meanwhile) is looked up again.
    pub async fn load_current(&self) -> Result<Option<StoredDocument>, StoreError> {
        for _ in 0..3 {
            let Some(version) = self.current_version().await? else {
                return Ok(None);
            };
            if let Some(bytes) = self.fetch(&version).await? {
                return RedisStore::decode(&version, &bytes).map(Some);
            }
        }
        Err(StoreError::Corrupt(
            "the current version's document is missing from Redis".into(),
        ))
    }

    /// Writes the document under its own key, then makes it current, keeps it with its
    /// summary among the newest `keep` versions, and announces it.
    pub async fn store(
        &self,
        stored: &StoredDocument,
        summary: &VersionSummary,
        keep: usize,
    ) -> Result<PutOutcome, StoreError> {
        if stored.document.is_empty() {
            return Err(StoreError::EmptyDocument);
        }
        if self.current_version().await?.as_deref() == Some(stored.version.as_str()) {
            return Ok(PutOutcome::Unchanged);
        }
        let bytes = super::encode(stored)?;
        let doc_key = self.doc_key(&stored.version);
        // NX: a document already there under this id has this content (the id is its
        // hash) and may be a kept version without expiry, which must stay without one.
        self.transfer::<()>(
            redis::cmd("SET")
                .arg(&doc_key)
                .arg(bytes)
                .arg("NX")
                .arg("EX")
                .arg(ORPHAN_TTL_SECS),
        )
        .await?;
        let made: i64 = self
            .invoke(
                MAKE_CURRENT
                    .key(self.key("current"))
                    .key(self.key("versions"))
                    .key(&doc_key)
                    .key(self.key("summaries"))
                    .key(self.key("pinned"))
                    .arg(&stored.version)
                    .arg(self.channel())
                    .arg(keep.max(1))
                    .arg(self.key("doc:"))
                    .arg(super::encode_summary(summary)?),
                COMMAND_TIMEOUT,
            )
            .await?;
        Ok(if made == 1 {
            PutOutcome::Stored
        } else {
            PutOutcome::Unchanged
        })
    }

    /// The kept versions, newest first, with their summaries. Versions kept by a depot that
    /// did not record summaries yet are left out.
    pub async fn kept_versions(&self) -> Result<History, StoreError> {
        let ids: Vec<String> = self
            .query(
                redis::cmd("LRANGE")
                    .arg(self.key("versions"))
                    .arg(0)
                    .arg(-1),
                COMMAND_TIMEOUT,
            )
            .await?;
        if ids.is_empty() {
            return Ok(History::default());
        }
        let summaries: Vec<Option<Vec<u8>>> = self
            .query(
                redis::cmd("HMGET").arg(self.key("summaries")).arg(&ids),
                COMMAND_TIMEOUT,
            )
            .await?;
        let versions = summaries
            .into_iter()
            .flatten()
            .map(|bytes| super::decode_summary(&bytes))
            .collect::<Result<_, _>>()?;
        Ok(History { versions })
    }

    /// A kept version's document, if Redis still keeps it.
    pub async fn load_kept(&self, version: &str) -> Result<Option<StoredDocument>, StoreError> {
        match self.fetch(version).await? {
            Some(bytes) => RedisStore::decode(version, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// The channels as Redis keeps them.
    pub async fn load_channels(&self) -> Result<ChannelBook, StoreError> {
        let bytes: Option<Vec<u8>> = self
            .query(redis::cmd("GET").arg(self.key("channels")), COMMAND_TIMEOUT)
            .await?;
        match bytes {
            Some(bytes) => super::decode_channels(&bytes),
            None => Ok(ChannelBook::default()),
        }
    }

    /// The revision of the channels (one small read, for the follower's poll).
    pub async fn channels_rev(&self) -> Result<u64, StoreError> {
        let rev: Option<u64> = self
            .query(
                redis::cmd("GET").arg(self.key("channels:rev")),
                COMMAND_TIMEOUT,
            )
            .await?;
        Ok(rev.unwrap_or(0))
    }

    /// `TranslationStore::swap_channels`, in the `SWAP_CHANNELS` step.
    pub async fn swap(&self, expected: u64, next: &ChannelBook) -> Result<Swap, StoreError> {
        let mut invocation = SWAP_CHANNELS.prepare_invoke();
        invocation
            .key(self.key("channels"))
            .key(self.key("channels:rev"))
            .key(self.key("pinned"))
            .arg(expected)
            .arg(crate::translations::channels::book::encode(next))
            .arg(next.rev)
            .arg(self.key("doc:"))
            .arg(self.channel_moves());
        for version in next.pinned() {
            invocation.arg(version);
        }
        let answer: String = self.invoke(&invocation, COMMAND_TIMEOUT).await?;
        Ok(match answer.as_str() {
            "done" => Swap::Done,
            "stale" => Swap::Stale,
            other => Swap::Missing(other.trim_start_matches("missing:").to_owned()),
        })
    }

    /// A subscription to the channel of new versions, on its own connection (a subscribed
    /// connection can do nothing else). It ends when the connection is lost.
    pub async fn subscribe(&self) -> Result<PubSubStream, StoreError> {
        self.subscribe_to(self.channel()).await
    }

    /// A subscription to the announcements of the channels' new revisions.
    pub async fn subscribe_channel_moves(&self) -> Result<PubSubStream, StoreError> {
        self.subscribe_to(self.channel_moves()).await
    }

    async fn subscribe_to(&self, channel: String) -> Result<PubSubStream, StoreError> {
        let client = self.client.clone();
        self.within(CONNECT_TIMEOUT + COMMAND_TIMEOUT, async move {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(channel).await?;
            Ok(pubsub.into_on_message())
        })
        .await
    }

    fn block_on<T>(&self, work: impl Future<Output = T>) -> T {
        self.runtime.block_on(work)
    }
}

impl TranslationStore for RedisStore {
    fn save(
        &self,
        stored: &StoredDocument,
        summary: &VersionSummary,
        keep: usize,
    ) -> Result<PutOutcome, StoreError> {
        self.block_on(self.store(stored, summary, keep))
    }

    fn load(&self) -> Result<Option<StoredDocument>, StoreError> {
        self.block_on(self.load_current())
    }

    fn load_version(&self, version: &str) -> Result<Option<StoredDocument>, StoreError> {
        if !is_version_id(version) {
            return Ok(None);
        }
        self.block_on(self.load_kept(version))
    }

    fn history(&self) -> Result<History, StoreError> {
        self.block_on(self.kept_versions())
    }

    /// Redis persists by its own configuration; nothing is buffered here.
    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// In the hash the producers' lease reads the last sync from (`producer/lease.rs`):
    /// its time and failures for the pace, the whole state for the nodes that show it.
    fn save_sync_state(&self, state: &super::SyncState) -> Result<(), StoreError> {
        let mut cmd = redis::cmd("HSET");
        cmd.arg(self.key("producer:sync"))
            .arg("failures")
            .arg(state.consecutive_failures)
            .arg("state")
            .arg(super::encode_sync_state(state)?);
        if let Some(at) = state.last_sync_at {
            cmd.arg("lastSyncAt").arg(at.timestamp_millis());
        }
        self.block_on(self.query::<()>(&cmd, COMMAND_TIMEOUT))
    }

    fn load_sync_state(&self) -> Result<Option<super::SyncState>, StoreError> {
        let cmd = redis::cmd("HGET")
            .arg(self.key("producer:sync"))
            .arg("state")
            .to_owned();
        let bytes: Option<Vec<u8>> = self.block_on(self.query(&cmd, COMMAND_TIMEOUT))?;
        bytes.map(|b| super::decode_sync_state(&b)).transpose()
    }

    fn channels(&self) -> Result<ChannelBook, StoreError> {
        self.block_on(self.load_channels())
    }

    fn swap_channels(&self, expected: u64, next: &ChannelBook) -> Result<Swap, StoreError> {
        self.block_on(self.swap(expected, next))
    }

    fn health(&self) -> StoreHealth {
        let (reachable, last_error) = self
            .health
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        StoreHealth {
            kind: "redis",
            reachable,
            last_error,
        }
    }
}

/// The launcher the integration tests use, for the suite below.
#[cfg(test)]
#[allow(
    dead_code,
    reason = "the integration tests use more of the launcher than this suite"
)]
#[path = "../../../tests/support/engines.rs"]
pub(crate) mod engines;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::settings::Storage;
    use crate::secret::Secret;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Settings for a store on `url` under a prefix no other test uses.
    pub fn settings(url: &str) -> TranslationSettings {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        TranslationSettings {
            storage: Storage::Redis,
            sled_path: "unused".into(),
            file_path: "unused".into(),
            redis_url: Secret::new(url),
            redis_prefix: format!(
                "test{}-{}:",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
            keep_versions: 10,
            events_heartbeat_secs: 15,
            fallbacks: Default::default(),
            placeholders: Default::default(),
            sheet_encoding: "utf-8".into(),
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn redis_store_passes_the_store_suite() {
        let server = engines::RedisServer::start();
        let runtime = runtime();
        let _context = runtime.enter();
        // One prefix per folder the suite makes, so that reopening finds the same data.
        let prefixes = Mutex::new(std::collections::HashMap::new());
        let open = |dir: &std::path::Path| {
            let mut prefixes = prefixes.lock().unwrap();
            let fresh = settings(&server.url());
            let settings = prefixes.entry(dir.to_path_buf()).or_insert(fresh).clone();
            RedisStore::open(&settings).unwrap()
        };
        super::super::suite::run(
            |dir| std::sync::Arc::new(open(dir)),
            // Bad bytes made current as a version of their own.
            |dir, bytes| {
                let store = open(dir);
                let doc_key = store.doc_key("planted");
                runtime
                    .block_on(
                        store.query::<()>(
                            redis::cmd("SET").arg(doc_key).arg(bytes),
                            COMMAND_TIMEOUT,
                        ),
                    )
                    .unwrap();
                runtime
                    .block_on(store.query::<()>(
                        redis::cmd("SET").arg(store.key("current")).arg("planted"),
                        COMMAND_TIMEOUT,
                    ))
                    .unwrap();
            },
        );
    }

    #[test]
    fn versions_beyond_the_kept_ones_are_deleted_and_a_writer_killed_before_the_switch_changes_nothing()
     {
        let server = engines::RedisServer::start();
        let runtime = runtime();
        let _context = runtime.enter();
        let store = RedisStore::open(&settings(&server.url())).unwrap();
        let versions: Vec<StoredDocument> = (0..5)
            .map(|i| StoredDocument::new(super::super::suite::doc(&format!("v{i}"))).unwrap())
            .collect();
        let summary = |v: &StoredDocument| VersionSummary::between(None, v);
        for v in &versions {
            assert_eq!(
                runtime.block_on(store.store(v, &summary(v), 3)).unwrap(),
                PutOutcome::Stored
            );
        }
        let kept: Vec<String> = runtime
            .block_on(
                store.query(
                    redis::cmd("LRANGE")
                        .arg(store.key("versions"))
                        .arg(0)
                        .arg(-1),
                    COMMAND_TIMEOUT,
                ),
            )
            .unwrap();
        let newest_first: Vec<String> = versions.iter().rev().map(|v| v.version.clone()).collect();
        assert_eq!(kept, newest_first[..3]);
        for (i, v) in versions.iter().enumerate() {
            let bytes = runtime.block_on(store.fetch(&v.version)).unwrap();
            assert_eq!(bytes.is_some(), i >= 2, "document of version {i}");
        }
        // A writer that stored a document but died before the switch: the current version
        // stays, the orphan expires.
        let orphan = StoredDocument::new(super::super::suite::doc("orphan")).unwrap();
        runtime
            .block_on(
                store.query::<()>(
                    redis::cmd("SET")
                        .arg(store.doc_key(&orphan.version))
                        .arg(serde_json::to_vec(&orphan).unwrap())
                        .arg("NX")
                        .arg("EX")
                        .arg(ORPHAN_TTL_SECS),
                    COMMAND_TIMEOUT,
                ),
            )
            .unwrap();
        assert_eq!(store.load().unwrap().unwrap().version, versions[4].version);
        let ttl: i64 = runtime
            .block_on(store.query(
                redis::cmd("TTL").arg(store.doc_key(&orphan.version)),
                COMMAND_TIMEOUT,
            ))
            .unwrap();
        assert!(ttl > 0, "{ttl}");
        // Storing it later makes it current and permanent; an older kept version can
        // become current again.
        assert_eq!(
            runtime
                .block_on(store.store(&orphan, &summary(&orphan), 3))
                .unwrap(),
            PutOutcome::Stored
        );
        let ttl: i64 = runtime
            .block_on(store.query(
                redis::cmd("TTL").arg(store.doc_key(&orphan.version)),
                COMMAND_TIMEOUT,
            ))
            .unwrap();
        assert_eq!(ttl, -1);
        assert_eq!(
            runtime
                .block_on(store.store(&versions[3], &summary(&versions[3]), 3))
                .unwrap(),
            PutOutcome::Stored
        );
        assert_eq!(store.load().unwrap().unwrap().version, versions[3].version);
    }

    #[test]
    fn an_unreachable_redis_is_an_error_naming_its_host_alone_and_shows_in_health() {
        let port = engines::free_port();
        let runtime = runtime();
        let _context = runtime.enter();
        let store =
            RedisStore::open(&settings(&format!("redis://u:hunter2@127.0.0.1:{port}/0"))).unwrap();
        assert!(store.health().reachable);
        let error = store.load().unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "the translations store Redis at redis://127.0.0.1:{port}/*** is unreachable: "
            )),
            "{error}"
        );
        assert!(!error.contains("hunter2"), "{error}");
        let health = store.health();
        assert_eq!((health.kind, health.reachable), ("redis", false));
        assert!(health.last_error.is_some());
    }
}
