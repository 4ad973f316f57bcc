#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets into fuzz/corpus/<target>/ from
tests/fixtures (sheets, SigV4 vectors) and the shapes the unit tests use. The committed
corpora started from these and were then grown and minimised by the fuzzer;
running this again adds the seeds back (harmless: `cargo fuzz cmin` drops the redundant)."""

import csv
import io
import json
import pathlib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHEETS = ROOT / "tests" / "fixtures" / "sheets"
OUT = ROOT / "fuzz" / "corpus"

# The members each *_xml target replaces, in order (fuzz/src/workbook.rs, Kind::members).
XLSX_MEMBERS = [
    "xl/worksheets/sheet1.xml",
    "xl/sharedStrings.xml",
    "xl/workbook.xml",
    "xl/styles.xml",
    "xl/_rels/workbook.xml.rels",
    "xl/worksheets/sheet2.xml",
    "[Content_Types].xml",
]
ODS_MEMBERS = ["content.xml", "styles.xml", "meta.xml", "META-INF/manifest.xml"]


def write(target, name, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / name).write_bytes(data)


def members_seed(path, members):
    archive = zipfile.ZipFile(path)
    names = set(archive.namelist())
    return b"\xff".join(archive.read(m) if m in names else b"" for m in members)


def main():
    # Sheets: the files as they are, and the json fixtures as csv.
    for path in sorted(SHEETS.iterdir()):
        if path.suffix == ".csv":
            write("sheet_csv", path.name, path.read_bytes())
        elif path.suffix == ".xlsx":
            write("sheet_xlsx", path.name, path.read_bytes())
            write("sheet_xlsx_xml", path.stem, members_seed(path, XLSX_MEMBERS))
        elif path.suffix == ".ods":
            write("sheet_ods", path.name, path.read_bytes())
            write("sheet_ods_xml", path.stem, members_seed(path, ODS_MEMBERS))
        elif path.name.endswith(".sheet.json"):
            rows = json.loads(path.read_text())["values"]
            text = io.StringIO()
            csv.writer(text, lineterminator="\r\n").writerows(rows)
            write("sheet_csv", path.name.replace(".sheet.json", ".csv"), text.getvalue())

    filters = [
        "en_US", "pl_PL", "*", "*.FRONT", "CORE", "CORE.LABELS.NO", "en.CORE",
        "en.CORE.LABELS.YES.tag2", "en_US.CORE.tag1", "tag1", "tag1.A", "en.", "en..CORE",
        "en-us.CORE", "*.tag1\nen_US.FRONT", "a." * 17,
    ]
    for i, text in enumerate(filters):
        write("filter", f"filter-{i}", text)

    queries = [
        "filters%5B%5D=en.A&filters%5B%5D=a+b%2Bc&flag&&x=",
        "fileName=%ZZ", "fileName=%FF", "fileName=%4", "limit=1&page=4", "limit=1000",
        "page=-1", "permission=private", "permission=public&permission=x",
        "format=po&filters[]=en&keepLocale=true&comments=false", "filters[3]=*.tag1",
        "key=dir%2Fpriv%20ate%2B%C3%BC%26%3D.bin", "key=a&key=b", "fileName=Report_%25",
    ]
    for i, text in enumerate(queries):
        write("query", f"query-{i}", text)

    vectors = json.loads((ROOT / "tests/fixtures/sigv4/presign-vectors.json").read_text())
    for v in vectors["vectors"]:
        write("sigv4_raw", f"vector-{v['id']}", v["expected_url"])

    env_files = [
        "# comment\n\nSERVICE_CLIENT_ID=abc # trailing\nexport A_B=\"x \\\"y\\\"\\nz\"\nC='raw \\n'\nD=\n",
        "# Google credentials\nSERVICE_CLIENT_ID=abc # the app\n\nexport SERVICE_REFRESH_TOKEN=old\n# end\n\x001//new-token",
        "SERVICE_SPREADSHEET_ID=x\x00with space \"q\" \\ #",
        "A=1\nnot a pair\n",
        "A=\"open",
    ]
    for i, text in enumerate(env_files):
        write("env_file", f"env-{i}", text)


if __name__ == "__main__":
    main()
