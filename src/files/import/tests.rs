use super::*;
use crate::files::query::ListQuery;
use chrono::TimeZone;

const K1: &str = "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e51-original";
const K2: &str = "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e52-original";
const K3: &str = "0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e53";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
}

fn jsonl_line(key: &str, extra: &str) -> String {
    format!(
        r#"{{"fileName":"a.png","description":"d","bucket":"depot-files","status":1,"fileType":"png","permission":"public","key":"{key}"{extra}}}"#
    )
}

fn parse_jsonl(text: &str) -> Result<Vec<ImportRow>, String> {
    parse_records(text, ImportFormat::JsonLines, now()).map_err(|e| e.to_string())
}

fn parse_csv(text: &str) -> Result<Vec<ImportRow>, String> {
    parse_records(text, ImportFormat::Csv, now()).map_err(|e| e.to_string())
}

#[test]
fn format_by_extension_then_sniffed() {
    let p = Path::new;
    assert_eq!(
        ImportFormat::detect(p("r.jsonl"), ""),
        ImportFormat::JsonLines
    );
    assert_eq!(
        ImportFormat::detect(p("r.NDJSON"), ""),
        ImportFormat::JsonLines
    );
    assert_eq!(
        ImportFormat::detect(p("r.json"), "a,b"),
        ImportFormat::JsonLines
    );
    assert_eq!(ImportFormat::detect(p("r.csv"), "{"), ImportFormat::Csv);
    assert_eq!(
        ImportFormat::detect(p("records"), "\n  {\"a\":1}"),
        ImportFormat::JsonLines
    );
    assert_eq!(
        ImportFormat::detect(p("records.txt"), "fileName,key"),
        ImportFormat::Csv
    );
}

#[test]
fn json_lines_parse_with_defaults_and_blank_lines() {
    let text = format!(
        "{}\n\n{}\r\n",
        jsonl_line(K1, r#","createdAt":"2025-05-06T07:08:09.5+02:00","id":77"#),
        r#"{"fileName":"b.pdf","bucket":"depot-files","fileType":"application/pdf","permission":"private","key":"0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e52-original","status":null}"#
    );
    let rows = parse_jsonl(&text).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].line, 1);
    assert_eq!(rows[0].record.status, 1);
    assert_eq!(
        crate::time::iso_millis(rows[0].record.created_at.unwrap()),
        "2025-05-06T05:08:09.500Z"
    );
    assert_eq!(rows[1].line, 3);
    assert_eq!(
        rows[1].record,
        NewFileRecord {
            file_name: "b.pdf".into(),
            description: String::new(),
            bucket: "depot-files".into(),
            status: 0,
            file_type: "application/pdf".into(),
            permission: Permission::Private,
            key: K2.into(),
            created_at: Some(now()),
            size: None,
            sha256: None,
        }
    );
}

#[test]
fn json_line_errors_name_line_and_field() {
    let cases: Vec<(String, &str)> = vec![
        (
            format!(
                "{}\n{}",
                jsonl_line(K1, ""),
                jsonl_line(K2, "").replace("public", "secret")
            ),
            "line 2: permission must be public or private, got 'secret'",
        ),
        (
            jsonl_line(K1, "").replace(r#""status":1"#, r#""status":"one""#),
            "line 1: status must be an integer, got 'one'",
        ),
        (
            jsonl_line(K1, "").replace(r#""status":1"#, r#""status":1.5"#),
            "line 1: status must be an integer, got 1.5",
        ),
        (
            jsonl_line(K1, "").replace(r#""a.png""#, "42"),
            "line 1: fileName must be a string, got 42",
        ),
        (
            jsonl_line(K1, r#","filename":"x""#),
            "line 1: unknown field 'filename'; allowed: fileName, description, bucket, status, fileType, permission, key, createdAt, size, sha256",
        ),
        (
            jsonl_line(K1, "").replace(r#""bucket":"depot-files","#, ""),
            "line 1: bucket is required",
        ),
        (
            jsonl_line("bell\\u0007", ""),
            "line 1: key must not contain control characters",
        ),
        (
            jsonl_line(K1, r#","createdAt":"2025-13-01""#),
            "line 1: createdAt must be an ISO 8601 date-time with a time zone (e.g. 2026-11-21T09:05:03.120Z), got '2025-13-01'",
        ),
        (
            "\n\n{\"fileName\": \"a\"".to_string(),
            "line 3: invalid JSON at column 16: EOF while parsing an object",
        ),
        (
            "\"just a string\"".to_string(),
            "line 1: each line must be one JSON object with the record's fields",
        ),
        (
            format!(
                "{}\n{}\n{}",
                jsonl_line(K1, ""),
                jsonl_line(K2, ""),
                jsonl_line(K1, "")
            ),
            "line 3: key '0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e51-original' appears again (first on line 1)",
        ),
        (
            format!("[{}]", jsonl_line(K1, "")),
            "the file holds a JSON array; import reads JSON lines: one record object per line (jq -c '.[]' converts)",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_jsonl(&text).unwrap_err(), expected, "{text}");
    }
}

/// Keys are what S3 allows: the catalogue describes objects that already exist.
#[test]
fn keys_of_any_s3_shape_import_as_given() {
    let keys = [
        "photos/2024/IMG 0001 (1).JPG",
        "a+b=c&d;e@f$g%25h~i'j!k*l",
        "ünï/日本語/файл.txt",
        "folder/",
        "a//b/./c/../d",
        "/leading",
        "quote\"back\\slash,comma",
    ];
    let jsonl: String = keys
        .iter()
        .map(|k| {
            let key = serde_json::to_string(k).unwrap();
            format!(
                r#"{{"fileName":"f","bucket":"depot-files","fileType":"png","permission":"public","key":{key}}}"#
            ) + "\n"
        })
        .collect();
    let rows = parse_jsonl(&jsonl).unwrap();
    let imported: Vec<&str> = rows.iter().map(|r| r.record.key.as_str()).collect();
    assert_eq!(imported, keys);

    let mut csv = String::from("fileName,bucket,fileType,permission,key\n");
    for key in keys {
        csv.push_str(&format!(
            "f,depot-files,png,public,\"{}\"\n",
            key.replace('"', "\"\"")
        ));
    }
    let rows = parse_csv(&csv).unwrap();
    let imported: Vec<&str> = rows.iter().map(|r| r.record.key.as_str()).collect();
    assert_eq!(imported, keys);
}

const CSV_HEADER: &str = "fileName,description,bucket,status,fileType,permission,key,createdAt";

#[test]
fn csv_parses_quoted_cells_and_empty_optionals() {
    let text = format!(
        "\u{feff}{CSV_HEADER}\n\"Report, final \"\"v2\"\".pdf\",\"two\nlines\",depot-files,2,pdf,private,{K1},2024-02-03T04:05:06Z\nb.png,,media,,image/png,public,{K3},\n"
    );
    let rows = parse_csv(&text).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].line, 2);
    assert_eq!(rows[0].record.file_name, "Report, final \"v2\".pdf");
    assert_eq!(rows[0].record.description, "two\nlines");
    assert_eq!(rows[0].record.status, 2);
    assert_eq!(rows[0].record.permission, Permission::Private);
    // The second record starts on line 4: the first one spans two lines.
    assert_eq!(rows[1].line, 4);
    assert_eq!(rows[1].record.status, 0);
    assert_eq!(rows[1].record.created_at, Some(now()));
}

#[test]
fn csv_columns_may_come_in_any_order_and_optionals_may_be_left_out() {
    let text = format!("key,permission,fileType,bucket,fileName\n{K1},public,png,media,x.png\n");
    let rows = parse_csv(&text).unwrap();
    assert_eq!(rows[0].record.file_name, "x.png");
    assert_eq!(rows[0].record.description, "");
}

#[test]
fn csv_errors_name_line_and_field() {
    let row = |key: &str, permission: &str| format!("a.png,,depot-files,1,png,{permission},{key},");
    let cases: Vec<(String, &str)> = vec![
        (
            format!(
                "{CSV_HEADER}\n{}\n{}\n{}\n{}\n{}\n{}",
                row(K1, "public"),
                row(K2, "public"),
                row(K3, "public"),
                row("0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e54", "public"),
                row("0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e55", "public"),
                row("0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e56", "secret")
            ),
            "line 7: permission must be public or private, got 'secret'",
        ),
        (
            format!("{CSV_HEADER}\n{}", row(K1, "public").replace(",1,", ",x,")),
            "line 2: status must be an integer, got 'x'",
        ),
        (
            "fileName,bucket,fileType,permission,key,bytes\n".to_string(),
            "line 1: unknown column 'bytes'; allowed: fileName, description, bucket, status, fileType, permission, key, createdAt, size, sha256",
        ),
        (
            "fileName,bucket,permission\n".to_string(),
            "line 1: missing column(s) fileType, key; required: fileName, bucket, fileType, permission, key",
        ),
        (
            "fileName,bucket,fileType,permission,key,key\n".to_string(),
            "line 1: column 'key' appears twice",
        ),
        (
            format!("{CSV_HEADER}\n{}\na.png,,depot-files\n", row(K1, "public")),
            "line 3: expected 8 fields like the header, got 3",
        ),
        (
            format!(
                "{CSV_HEADER}\n{}\n{}",
                row(K1, "public"),
                row(K1, "private")
            ),
            "line 3: key '0b7e4a52-2c5f-4c1e-9d0a-3f1b2c3d4e51-original' appears again (first on line 2)",
        ),
        (
            format!("{CSV_HEADER}\n,,depot-files,1,png,public,{K1},"),
            "line 2: fileName is required",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_csv(&text).unwrap_err(), expected, "{text}");
    }
}

#[test]
fn import_file_inserts_all_rows_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut repo = FilesRepo::open(dir.path().join("files.sqlite3")).unwrap();
    let good = dir.path().join("good.ndjson");
    std::fs::write(
        &good,
        format!("{}\n{}\n", jsonl_line(K1, ""), jsonl_line(K2, "")),
    )
    .unwrap();
    assert_eq!(import_file(&mut repo, &good).unwrap(), 2);
    assert_eq!(repo.count(None).unwrap(), 2);

    // K3 is new, K2 is already in the database: nothing from this file is kept.
    let clash = dir.path().join("clash.csv");
    std::fs::write(
        &clash,
        format!("{CSV_HEADER}\nc.png,,media,1,png,public,{K3},\nd.png,,media,1,png,public,{K2},\n"),
    )
    .unwrap();
    assert_eq!(
        import_file(&mut repo, &clash).unwrap_err().to_string(),
        format!("line 3: key '{K2}' already exists in the database")
    );
    assert_eq!(repo.count(None).unwrap(), 2);
    assert_eq!(repo.get_by_key(K3).unwrap(), None);

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{}\n{{oops\n", jsonl_line(K3, ""))).unwrap();
    assert_eq!(
        import_file(&mut repo, &bad).unwrap_err().to_string(),
        "line 2: invalid JSON at column 2: key must be a string"
    );
    assert_eq!(repo.count(None).unwrap(), 2);
    let page = repo.list(&ListQuery::default(), true).unwrap();
    assert_eq!(page.total, 2);
}

#[test]
fn import_file_reports_unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut repo = FilesRepo::open_in_memory().unwrap();
    let missing = dir.path().join("missing.csv");
    let err = import_file(&mut repo, &missing).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot read {}", missing.display())
    );
    assert!(
        matches!(err, ImportError::Read { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    );
    let latin1 = dir.path().join("latin1.csv");
    std::fs::write(&latin1, b"fileName\n\xe9t\xe9.png\n").unwrap();
    assert_eq!(
        import_file(&mut repo, &latin1).unwrap_err().to_string(),
        format!(
            "{} is not UTF-8 text; save it as UTF-8 and import again",
            latin1.display()
        )
    );
}

#[test]
fn empty_file_imports_nothing() {
    let mut repo = FilesRepo::open_in_memory().unwrap();
    assert_eq!(parse_jsonl("\n\n").unwrap(), vec![]);
    assert_eq!(insert_rows(&mut repo, vec![]).unwrap(), 0);
}

/// `size` and `sha256` are optional columns: absent, empty or null leave them unknown.
#[test]
fn size_and_sha256_are_optional_columns() {
    let hash = "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824";
    let csv = format!(
        "fileName,bucket,fileType,permission,key,size,sha256\n\
         a.png,depot-files,png,public,{K1},5,{hash}\n\
         b.png,depot-files,png,public,{K2},,\n"
    );
    let rows = parse_csv(&csv).unwrap();
    assert_eq!(rows[0].record.size, Some(5));
    assert_eq!(
        rows[0].record.sha256.as_deref(),
        Some(hash.to_ascii_lowercase().as_str())
    );
    assert_eq!(
        (rows[1].record.size, rows[1].record.sha256.as_deref()),
        (None, None)
    );
    let jsonl = format!(
        r#"{{"fileName":"a","bucket":"depot-files","fileType":"png","permission":"public","key":"{K1}","size":7,"sha256":null}}"#
    );
    let rows = parse_jsonl(&jsonl).unwrap();
    assert_eq!(
        (rows[0].record.size, rows[0].record.sha256.as_deref()),
        (Some(7), None)
    );
    for (line, expected) in [
        (
            jsonl.replace(r#""size":7"#, r#""size":-1"#),
            "line 1: size must be a number of bytes (0 or more), got -1",
        ),
        (
            jsonl.replace(r#""sha256":null"#, r#""sha256":"abc""#),
            "line 1: sha256 must be 64 hexadecimal digits (the SHA-256 of the content), got 'abc'",
        ),
    ] {
        assert_eq!(parse_jsonl(&line).unwrap_err(), expected);
    }
    assert_eq!(
        parse_csv(&csv.replace(",5,", ",5kB,")).unwrap_err(),
        "line 2: size must be a number of bytes (0 or more), got '5kB'"
    );
}
