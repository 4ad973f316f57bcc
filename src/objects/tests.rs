use std::io::Read;
use std::time::Duration;

use super::*;

fn store() -> (tempfile::TempDir, ObjectStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = ObjectStore::open(dir.path().join("objects")).expect("store");
    (dir, store)
}

fn read_all(store: &ObjectStore, bucket: &str, key: &str, range: Option<ByteRange>) -> Vec<u8> {
    let (file, length) = store
        .open_object(bucket, key)
        .expect("object")
        .into_range(range)
        .expect("range");
    let mut out = Vec::new();
    file.take(length).read_to_end(&mut out).expect("read");
    out
}

fn temp_files(store: &ObjectStore) -> usize {
    fs::read_dir(store.root().join(TEMP_DIR))
        .expect("temp dir")
        .count()
}

#[test]
fn put_then_read_back_under_root_bucket_key() {
    let (_dir, store) = store();
    let meta = store
        .put("bkt", "dir/sub/hello.txt", b"hello world")
        .expect("put");
    assert_eq!(meta.len, 11);
    assert_eq!(
        fs::read(store.root().join("bkt/dir%2F/sub%2F/hello.txt")).expect("on disk"),
        b"hello world"
    );
    assert_eq!(
        read_all(&store, "bkt", "dir/sub/hello.txt", None),
        b"hello world"
    );
    assert_eq!(store.stat("bkt", "dir/sub/hello.txt").expect("stat"), meta);
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn ranges_read_the_right_bytes() {
    let (_dir, store) = store();
    store.put("bkt", "k", b"0123456789").expect("put");
    let range = |header: &str| parse_range(header, 10).expect("satisfiable");
    assert_eq!(read_all(&store, "bkt", "k", range("bytes=2-5")), b"2345");
    assert_eq!(read_all(&store, "bkt", "k", range("bytes=-3")), b"789");
    assert_eq!(read_all(&store, "bkt", "k", range("bytes=7-")), b"789");
    assert_eq!(read_all(&store, "bkt", "k", range("bytes=0-0")), b"0");
    assert_eq!(
        read_all(&store, "bkt", "k", range("bytes=1-2,5-6")),
        b"0123456789"
    );
    let object = store.open_object("bkt", "k").expect("object");
    assert_eq!(
        parse_range("bytes=10-", object.meta.len)
            .expect_err("416")
            .content_range(),
        "bytes */10"
    );
}

#[test]
fn overwrite_is_atomic_and_changes_the_etag() {
    let (_dir, store) = store();
    let first = store.put("bkt", "k", b"one").expect("put");
    let reader = store.open_object("bkt", "k").expect("open");
    let second = store.put("bkt", "k", b"two").expect("put");
    assert_ne!(first.etag, second.etag);
    assert_eq!(store.stat("bkt", "k").expect("stat").etag, second.etag);
    // A reader that opened before the put keeps reading the old content.
    let (file, length) = reader.into_range(None).expect("range");
    let mut old = String::new();
    file.take(length).read_to_string(&mut old).expect("read");
    assert_eq!(old, "one");
    let same_length_rewrite = store.put("bkt", "k", b"two").expect("put");
    assert_ne!(same_length_rewrite.etag, second.etag);
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn etag_is_stable_while_the_file_is_unchanged() {
    let (_dir, store) = store();
    let meta = store.put("bkt", "k", b"content").expect("put");
    assert!(meta.etag.starts_with('"') && meta.etag.ends_with('"'));
    assert_eq!(meta.etag.len(), 26);
    assert_eq!(store.stat("bkt", "k").expect("stat"), meta);
    assert_eq!(store.stat("bkt", "k").expect("stat"), meta);
}

#[test]
fn edit_in_place_changes_the_etag() {
    let (_dir, store) = store();
    let before = store.put("bkt", "k", b"aaaa").expect("put");
    fs::write(store.root().join("bkt/k"), b"bbbb").expect("edit by hand");
    assert_ne!(store.stat("bkt", "k").expect("stat").etag, before.etag);
}

#[test]
fn put_file_and_reader_copy_content() {
    let (dir, store) = store();
    let src = dir.path().join("src.bin");
    let content: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
    fs::write(&src, &content).expect("src");
    let meta = store.put_file("bkt", "big.bin", &src).expect("put_file");
    assert_eq!(meta.len, 200_000);
    assert_eq!(read_all(&store, "bkt", "big.bin", None), content);
    let meta = store
        .put_reader("bkt", "r", &mut &content[..10])
        .expect("put_reader");
    assert_eq!(meta.len, 10);
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn failed_put_leaves_no_temp_file_and_the_old_object() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("upload cut"))
        }
    }
    let (_dir, store) = store();
    store.put("bkt", "k", b"old").expect("put");
    let error = store
        .put_reader("bkt", "k", &mut Failing)
        .expect_err("fails");
    assert!(
        matches!(
            error,
            ObjectError::Io {
                action: "write",
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(read_all(&store, "bkt", "k", None), b"old");
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn escape_attempts_are_refused_before_touching_the_disk() {
    let (dir, store) = store();
    for key in [
        "../outside",
        "a/../../outside",
        "/etc/passwd",
        "a\0b",
        "a\nb",
        "",
    ] {
        for result in [
            store.put("bkt", key, b"x").map(|_| ()),
            store.stat("bkt", key).map(|_| ()),
            store.delete("bkt", key),
            store.open_object("bkt", key).map(|_| ()),
        ] {
            assert!(
                matches!(result, Err(ObjectError::InvalidKey { .. })),
                "{key:?}: {result:?}"
            );
        }
    }
    for bucket in ["..", ".tmp", "a/b", "../x"] {
        assert!(matches!(
            store.put(bucket, "k", b"x"),
            Err(ObjectError::InvalidBucket { .. })
        ));
    }
    assert!(!dir.path().join("outside").exists());
}

#[test]
fn missing_objects_and_folders_are_not_found() {
    let (_dir, store) = store();
    store.put("bkt", "dir/file", b"x").expect("put");
    for key in ["nothing", "dir", "dir/file/below"] {
        assert!(
            matches!(store.stat("bkt", key), Err(ObjectError::NotFound { .. })),
            "{key}"
        );
        assert!(
            matches!(store.delete("bkt", key), Err(ObjectError::NotFound { .. })),
            "{key}"
        );
    }
    assert!(matches!(
        store.stat("other", "dir/file"),
        Err(ObjectError::NotFound { .. })
    ));
}

#[test]
fn a_key_and_the_keys_below_it_live_side_by_side() {
    let (_dir, store) = store();
    let keys = [
        "a/b", "a", "a/b/c", "a/", "a//b", "a/./b", ".", "a%2F", "100%",
    ];
    for key in keys {
        store.put("bkt", key, key.as_bytes()).expect(key);
    }
    for key in keys {
        assert_eq!(read_all(&store, "bkt", key, None), key.as_bytes(), "{key}");
    }
    store.delete("bkt", "a").expect("delete");
    assert_eq!(read_all(&store, "bkt", "a/b", None), b"a/b");
    assert!(matches!(
        store.stat("bkt", "a"),
        Err(ObjectError::NotFound { .. })
    ));
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn a_foreign_file_in_the_way_is_a_conflict() {
    let (_dir, store) = store();
    // Not depot's layout: a file where the folder of `a/...` keys goes.
    fs::create_dir_all(store.root().join("bkt")).expect("bucket");
    fs::write(store.root().join("bkt/a%2F"), b"by hand").expect("foreign file");
    assert!(matches!(
        store.put("bkt", "a/b", b"y"),
        Err(ObjectError::KeyConflict { .. })
    ));
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn delete_removes_the_object() {
    let (_dir, store) = store();
    store.put("bkt", "k", b"x").expect("put");
    store.delete("bkt", "k").expect("delete");
    assert!(matches!(
        store.stat("bkt", "k"),
        Err(ObjectError::NotFound { .. })
    ));
}

#[test]
fn sweep_removes_the_temp_files_no_process_holds() {
    let (_dir, store) = store();
    let temp = store.root().join(TEMP_DIR);
    // Left by a killed put (or an older depot): nobody holds it.
    fs::write(temp.join("put-dead"), b"half").expect("dead");
    // A put under way holds its file locked (a lock from another open file description
    // conflicts even within one process, as one from another process does).
    let live = File::create(temp.join("put-live")).expect("live");
    live.lock().expect("lock");
    assert_eq!(store.sweep_dead_temp_files(), 1);
    assert!(!temp.join("put-dead").exists());
    assert!(temp.join("put-live").exists());
    drop(live);
    assert_eq!(store.sweep_dead_temp_files(), 1);
    assert_eq!(temp_files(&store), 0);
}

#[test]
fn intents_are_listed_once_their_writer_is_gone() {
    let (_dir, store) = store();
    let running = store.begin(IntentOp::Put, "bkt", "a/b c").expect("begin");
    assert!(store.unfinished().is_empty(), "a held intent is not listed");
    let abandoned = store.begin(IntentOp::Delete, "bkt", "k").expect("begin");
    drop(abandoned);
    let found = store.unfinished();
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].intent,
        Some(Intent {
            op: IntentOp::Delete,
            bucket: "bkt".into(),
            key: "k".into(),
        })
    );
    // While one sweep holds it, another does not see it.
    assert!(store.unfinished().is_empty());
    for unfinished in found {
        unfinished.finish();
    }
    running.finish();
    assert!(store.unfinished().is_empty());
    assert_eq!(
        fs::read_dir(store.root().join(PENDING_DIR))
            .expect("pending dir")
            .count(),
        0
    );
}

#[test]
fn an_intent_cut_before_it_was_whole_says_nothing() {
    let (_dir, store) = store();
    let dir = store.root().join(PENDING_DIR);
    fs::write(dir.join("0123.json"), b"{\"op\":\"pu").expect("cut note");
    fs::write(dir.join("4567.json"), b"").expect("empty note");
    let found = store.unfinished();
    assert_eq!(found.len(), 2);
    assert!(found.iter().all(|u| u.intent.is_none()));
}

#[test]
fn last_modified_is_an_http_date() {
    let meta = ObjectMeta {
        len: 0,
        modified: DateTime::<Utc>::from(UNIX_EPOCH + Duration::from_secs(784_111_777)),
        etag: String::new(),
    };
    assert_eq!(meta.last_modified_http(), "Sun, 06 Nov 1994 08:49:37 GMT");
}

#[test]
fn unicode_and_reserved_characters_in_keys_are_plain_file_names() {
    let (_dir, store) = store();
    let key = "ünï/a b+c%20d~e.txt";
    store.put("bkt", key, b"x").expect("put");
    assert!(store.root().join("bkt/ünï%2F/a b+c%2520d~e.txt").is_file());
}

async fn spooled(dir: PathBuf, bytes: &[u8]) -> Spooled {
    let mut spool = Spool::create(dir).await.expect("spool");
    spool.write(bytes).await.expect("write");
    spool.finish().await.expect("finish")
}

#[tokio::test]
async fn a_put_if_absent_lands_once_and_never_replaces() {
    let (dir, store) = store();
    let first = spooled(store.spool_dir(), b"first").await;
    let meta = store
        .put_spooled_if_absent("bkt", "a/b.bin", first)
        .expect("put")
        .expect("nothing was there");
    assert_eq!(meta, store.stat("bkt", "a/b.bin").expect("stat"));
    let second = spooled(store.spool_dir(), b"second").await;
    assert_eq!(
        store
            .put_spooled_if_absent("bkt", "a/b.bin", second)
            .expect("no error"),
        None
    );
    assert_eq!(read_all(&store, "bkt", "a/b.bin", None), b"first");
    // Spooled outside the store (another folder): copied, with the same rule.
    let outside = spooled(dir.path().join("elsewhere"), b"copied").await;
    assert!(
        store
            .put_spooled_if_absent("bkt", "c.bin", outside)
            .expect("put")
            .is_some()
    );
    assert_eq!(read_all(&store, "bkt", "c.bin", None), b"copied");
    // A folder put by hand in the key's place is no object: the key cannot be written.
    fs::create_dir_all(store.root().join("bkt/foreign")).expect("foreign folder");
    let blocked = spooled(store.spool_dir(), b"x").await;
    let result = store.put_spooled_if_absent("bkt", "foreign", blocked);
    assert!(
        matches!(result, Err(ObjectError::KeyConflict { .. })),
        "{result:?}"
    );
    assert_eq!(temp_files(&store), 0);
}
