//! GNUstep's ASCII property lists, as `plget` prints a value and `plmerge` writes a
//! merged file: strings (quoted with escapes, `\UXXXX` in UTF-16 units, or bare words) and
//! dictionaries. The tests read what GNUstep made of a `.strings` or `.stringsdict` file
//! through it.
#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared helpers"
)]

use std::collections::BTreeMap;

/// A GNUstep ASCII property list (what `plmerge` writes): strings and dictionaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plist {
    Text(String),
    Dict(BTreeMap<String, Plist>),
}

pub fn parse_ascii_plist(s: &str) -> Plist {
    fn skip(b: &[char], i: &mut usize) {
        while *i < b.len() && b[*i].is_whitespace() {
            *i += 1;
        }
    }
    fn string(b: &[char], i: &mut usize) -> String {
        skip(b, i);
        let mut units: Vec<u16> = Vec::new();
        let mut out = String::new();
        let flush = |units: &mut Vec<u16>, out: &mut String| {
            out.push_str(&String::from_utf16(units).unwrap());
            units.clear();
        };
        if b[*i] != '"' {
            while *i < b.len() && !b[*i].is_whitespace() && !";={}".contains(b[*i]) {
                out.push(b[*i]);
                *i += 1;
            }
            return out;
        }
        *i += 1;
        while b[*i] != '"' {
            if b[*i] == '\\' {
                *i += 1;
                match b[*i] {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'U' => {
                        let hex: String = b[*i + 1..*i + 5].iter().collect();
                        units.push(u16::from_str_radix(&hex, 16).unwrap());
                        *i += 5;
                        if !(b[*i] == '\\' && b[*i + 1] == 'U') {
                            flush(&mut units, &mut out);
                        }
                        continue;
                    }
                    c => out.push(c),
                }
            } else {
                out.push(b[*i]);
            }
            *i += 1;
        }
        *i += 1;
        out
    }
    fn value(b: &[char], i: &mut usize) -> Plist {
        skip(b, i);
        if b[*i] != '{' {
            return Plist::Text(string(b, i));
        }
        *i += 1;
        let mut dict = BTreeMap::new();
        loop {
            skip(b, i);
            if b[*i] == '}' {
                *i += 1;
                return Plist::Dict(dict);
            }
            let key = string(b, i);
            skip(b, i);
            assert_eq!(b[*i], '=');
            *i += 1;
            let v = value(b, i);
            skip(b, i);
            assert_eq!(b[*i], ';');
            *i += 1;
            dict.insert(key, v);
        }
    }
    let chars: Vec<char> = s.chars().collect();
    value(&chars, &mut 0)
}
