//! A new tab of a Google spreadsheet (`depot import --to google:ID/TAB`): `batchUpdate`
//! `addSheet` under a temporary title, sized to the grid; `values.update` of the rows in
//! requests of a few megabytes with `valueInputOption=RAW` (so `=1+1` and `'x` stay texts:
//! `USER_ENTERED` would make the first a formula and drop the apostrophe of the second);
//! then `updateSheetProperties` gives it its title. A failure deletes the temporary tab, so
//! the named tab appears whole or not at all. Several tabs (a sheet of namespaces, SPEC
//! §14) are added so one after the other, all or none.

use serde_json::{Value, json};

use super::{GoogleError, GoogleSheets, Target, encode_segment, parse_json};
use crate::model::cell_name;

/// The JSON of one `values.update` stays under this (Google refuses large requests).
const CHUNK_BYTES: usize = 4 << 20;

impl GoogleSheets {
    /// For writing: a service account asks for the `spreadsheets` scope.
    pub fn writing(mut self) -> GoogleSheets {
        self.scope = crate::sheets::consent::WRITE_SCOPE;
        self
    }

    /// Adds the tab `title` holding `rows` to the configured spreadsheet.
    pub async fn add_tab(&self, title: &str, rows: &[Vec<String>]) -> Result<(), GoogleError> {
        self.add_tabs(&[(title, rows)]).await
    }

    /// Adds a tab per (title, rows), in order; a failure deletes the tabs added before it,
    /// and a title the spreadsheet has already is refused before any is added.
    pub async fn add_tabs(&self, tabs: &[(&str, &[Vec<String>])]) -> Result<(), GoogleError> {
        let titles = self.titles().await?;
        if let Some((title, _)) = tabs
            .iter()
            .find(|(title, _)| titles.iter().any(|t| t == title))
        {
            return Err(GoogleError::TabExists {
                spreadsheet_id: self.service.spreadsheet_id.clone(),
                tab: (*title).to_owned(),
            });
        }
        let mut added = Vec::with_capacity(tabs.len());
        for (title, rows) in tabs {
            match self.add_one(title, rows).await {
                Ok(sheet_id) => added.push(sheet_id),
                Err(e) => {
                    // best effort, as for the tab that failed
                    for sheet_id in added {
                        let _ = self.delete_sheet(sheet_id).await;
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// One tab, under a temporary title until it is whole; its sheet id.
    async fn add_one(&self, title: &str, rows: &[Vec<String>]) -> Result<u64, GoogleError> {
        let exists = || GoogleError::TabExists {
            spreadsheet_id: self.service.spreadsheet_id.clone(),
            tab: title.to_owned(),
        };
        let mut random = [0u8; 4];
        getrandom::fill(&mut random).map_err(|e| GoogleError::Client(e.to_string()))?;
        let temporary = format!("{title} (depot import {})", crate::hex::encode(&random));
        let width = rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let sheet_id = self.add_sheet(&temporary, rows.len().max(1), width).await?;
        let filled = async {
            let mut start = 0;
            while start < rows.len() {
                let mut bytes = 0;
                let mut end = start;
                while end < rows.len() && (end == start || bytes < CHUNK_BYTES) {
                    bytes += rows[end].iter().map(|c| c.len() + 8).sum::<usize>() + 4;
                    end += 1;
                }
                self.update_values(&temporary, start, &rows[start..end], width)
                    .await?;
                start = end;
            }
            self.rename(sheet_id, title).await
        }
        .await;
        if let Err(e) = filled {
            // best effort: the error that stopped the import is the one to report
            let _ = self.delete_sheet(sheet_id).await;
            return Err(match e {
                GoogleError::Rejected { ref message, .. } if message.contains("already exists") => {
                    exists()
                }
                e => e,
            });
        }
        Ok(sheet_id)
    }

    fn spreadsheet_url(&self) -> String {
        format!(
            "{}/v4/spreadsheets/{}",
            self.google.sheets_url,
            encode_segment(&self.service.spreadsheet_id)
        )
    }

    /// Every tab's title.
    async fn titles(&self) -> Result<Vec<String>, GoogleError> {
        let url = format!("{}?fields=sheets.properties.title", self.spreadsheet_url());
        let body = self
            .call(reqwest::Method::GET, &url, None, Target::Spreadsheet)
            .await?;
        let invalid = |what: String| GoogleError::InvalidResponse {
            url: url.clone(),
            what,
        };
        let json = parse_json(&body).map_err(invalid)?;
        let sheets = json
            .get("sheets")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        sheets
            .iter()
            .map(|s| {
                s.pointer("/properties/title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| invalid("a sheet without properties.title".into()))
            })
            .collect()
    }

    async fn batch_update(&self, requests: Value) -> Result<Value, GoogleError> {
        let url = format!("{}:batchUpdate", self.spreadsheet_url());
        let body = self
            .call(
                reqwest::Method::POST,
                &url,
                Some(&json!({ "requests": requests })),
                Target::Spreadsheet,
            )
            .await?;
        parse_json(&body).map_err(|what| GoogleError::InvalidResponse { url, what })
    }

    async fn add_sheet(
        &self,
        title: &str,
        rows: usize,
        columns: usize,
    ) -> Result<u64, GoogleError> {
        let answer = self
            .batch_update(json!([{ "addSheet": { "properties": {
                "title": title,
                "gridProperties": { "rowCount": rows, "columnCount": columns }
            }}}]))
            .await?;
        answer
            .pointer("/replies/0/addSheet/properties/sheetId")
            .and_then(Value::as_u64)
            .ok_or_else(|| GoogleError::InvalidResponse {
                url: format!("{}:batchUpdate", self.spreadsheet_url()),
                what: "no replies[0].addSheet.properties.sheetId".into(),
            })
    }

    async fn rename(&self, sheet_id: u64, title: &str) -> Result<(), GoogleError> {
        self.batch_update(json!([{ "updateSheetProperties": {
            "properties": { "sheetId": sheet_id, "title": title },
            "fields": "title"
        }}]))
        .await
        .map(drop)
    }

    async fn delete_sheet(&self, sheet_id: u64) -> Result<(), GoogleError> {
        self.batch_update(json!([{ "deleteSheet": { "sheetId": sheet_id } }]))
            .await
            .map(drop)
    }

    /// `rows` written from row `start` (0-based) on, every row `width` cells wide.
    async fn update_values(
        &self,
        tab: &str,
        start: usize,
        rows: &[Vec<String>],
        width: usize,
    ) -> Result<(), GoogleError> {
        let first = cell_name(0, start + 1);
        let last = cell_name(width - 1, start + rows.len());
        let range = format!("{}!{first}:{last}", super::a1_range(tab));
        let url = format!(
            "{}/values/{}?valueInputOption=RAW",
            self.spreadsheet_url(),
            encode_segment(&range)
        );
        let body = json!({ "range": range, "majorDimension": "ROWS", "values": rows });
        self.call(reqwest::Method::PUT, &url, Some(&body), Target::Sheet(tab))
            .await
            .map(drop)
    }

    /// A Sheets API call with the access token; a 401 renews the token once, as reads do.
    async fn call(
        &self,
        method: reqwest::Method,
        url: &str,
        body: Option<&Value>,
        target: Target<'_>,
    ) -> Result<Vec<u8>, GoogleError> {
        let request = |token: &crate::secret::Secret| {
            let builder = self
                .http
                .request(method.clone(), url)
                .bearer_auth(token.expose());
            match body {
                Some(body) => builder.json(body),
                None => builder,
            }
        };
        let mut token = self.access_token().await?;
        let mut reply = self.send(request(&token), url).await?;
        if reply.status == 401 {
            self.forget(&token).await;
            token = self.access_token().await?;
            reply = self.send(request(&token), url).await?;
        }
        if (200..300).contains(&reply.status) {
            return Ok(reply.body);
        }
        Err(self.sheets_error(&reply, url, target, &token))
    }
}
