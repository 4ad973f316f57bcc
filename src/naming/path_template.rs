//! Output path templates for `depot generate` (SPEC §14, `--layout` and
//! `translations.layouts`): `{namespace}/{lang}.json` and the like, for the layouts of
//! next-i18next, Vue, Angular and monorepos. A template is checked once (its placeholders
//! known, its path relative and inside the output folder); each file's path is the template
//! with one locale's (and namespace's) values.

use crate::formats::Format;
use crate::model::langtag;
use std::path::{Component, Path, PathBuf};
use thiserror::Error;

/// The placeholders a template may hold.
pub const PLACEHOLDERS: [&str; 7] = [
    "namespace",
    "locale",
    "lang",
    "region",
    "android",
    "apple",
    "ext",
];

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TemplateError {
    #[error(
        "the layout '{template}' has unknown placeholder(s) {}: the placeholders are {}",
        .unknown.iter().map(|u| format!("{{{u}}}")).collect::<Vec<_>>().join(", "),
        PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
    )]
    Unknown {
        template: String,
        unknown: Vec<String>,
    },
    #[error("the layout '{template}' has a '{{' without its '}}'")]
    Unclosed { template: String },
    #[error(
        "the layout '{template}' must stay inside the output folder: a relative path without \
         '..' (e.g. {{namespace}}/{{lang}}.json)"
    )]
    Outside { template: String },
    #[error(
        "the layout '{template}' does not name {{namespace}}, and the sheet has several \
         namespaces ({}): put {{namespace}} in the path (e.g. {{namespace}}/{{locale}}.json)",
        .namespaces.join(", ")
    )]
    NoNamespace {
        template: String,
        namespaces: Vec<String>,
    },
    #[error(
        "locale '{locale}' is not a language tag, which {{{placeholder}}} needs: write it as \
         BCP 47 (en, en_US, zh_Hant), or name it for this target in translations.locales"
    )]
    NotALanguageTag { locale: String, placeholder: String },
    #[error(
        "the layout '{template}' gives '{path}' for locale '{locale}', outside the output folder \
         or not a file name: rename the locale (translations.locales) or change the layout"
    )]
    BadPath {
        template: String,
        locale: String,
        path: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Placeholder(&'static str),
}

/// A checked template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate {
    template: String,
    parts: Vec<Part>,
}

/// The values of one file.
pub struct Values<'a> {
    /// The locale as the target names it.
    pub locale: &'a str,
    pub namespace: &'a str,
    pub format: Format,
}

impl PathTemplate {
    pub fn parse(template: &str) -> Result<PathTemplate, TemplateError> {
        let mut parts = Vec::new();
        let mut unknown = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(TemplateError::Unclosed {
                    template: template.to_owned(),
                });
            };
            let name = &rest[open + 1..open + close];
            match PLACEHOLDERS.iter().find(|p| **p == name) {
                Some(p) => parts.push(Part::Placeholder(p)),
                None => unknown.push(name.to_owned()),
            }
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_owned()));
        }
        if !unknown.is_empty() {
            return Err(TemplateError::Unknown {
                template: template.to_owned(),
                unknown,
            });
        }
        let path = Path::new(template);
        let inside = !template.is_empty()
            && !template.starts_with(['/', '\\'])
            && !template.contains('\\')
            && (path.components()).all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(TemplateError::Outside {
                template: template.to_owned(),
            });
        }
        Ok(PathTemplate {
            template: template.to_owned(),
            parts,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.template
    }

    /// Whether the template has `{namespace}`: one file per namespace.
    pub fn names_namespace(&self) -> bool {
        self.parts.contains(&Part::Placeholder("namespace"))
    }

    /// Refuses a template without `{namespace}` for a sheet of several namespaces.
    pub fn check_namespaces(&self, namespaces: &[String]) -> Result<(), TemplateError> {
        match namespaces.is_empty() || self.names_namespace() {
            true => Ok(()),
            false => Err(TemplateError::NoNamespace {
                template: self.template.clone(),
                namespaces: namespaces.to_vec(),
            }),
        }
    }

    /// The path of one file, relative to the output folder.
    pub fn expand(&self, values: &Values<'_>) -> Result<PathBuf, TemplateError> {
        let tag = |placeholder: &str| {
            langtag::folded(values.locale).ok_or_else(|| TemplateError::NotALanguageTag {
                locale: values.locale.to_owned(),
                placeholder: placeholder.to_owned(),
            })
        };
        let mut path = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => path.push_str(text),
                Part::Placeholder(name) => path.push_str(&match *name {
                    "namespace" => values.namespace.to_owned(),
                    "locale" => values.locale.to_owned(),
                    "lang" => tag(name)?.language.as_str().to_owned(),
                    "region" => (langtag::parse(values.locale))
                        .ok_or_else(|| TemplateError::NotALanguageTag {
                            locale: values.locale.to_owned(),
                            placeholder: (*name).to_owned(),
                        })?
                        .region
                        .map(|r| r.as_str().to_owned())
                        .unwrap_or_default(),
                    "android" => crate::formats::android::files::folder(&tag(name)?),
                    "apple" => format!("{}.lproj", tag(name)?),
                    _ => values.format.extension().to_owned(),
                }),
            }
        }
        let bad = || TemplateError::BadPath {
            template: self.template.clone(),
            locale: values.locale.to_owned(),
            path: path.clone(),
        };
        let relative = Path::new(&path);
        let inside = !path.starts_with(['/', '\\'])
            && !path.contains('\\')
            && !path.ends_with('/')
            && !(path.chars()).any(char::is_control)
            && (relative.components())
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(bad());
        }
        Ok(PathBuf::from(path))
    }
}

/// `translations.layouts`: a template per format, as `format=template` items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layouts {
    templates: Vec<(Format, PathTemplate)>,
}

impl Layouts {
    /// Reads `format=template` items (what the configuration layers keep).
    pub fn parse(items: &[String]) -> Result<Layouts, String> {
        let mut templates: Vec<(Format, PathTemplate)> = Vec::new();
        for item in items {
            let (format, template) = item.split_once('=').ok_or_else(|| {
                format!(
                    "'{item}' is not FORMAT=TEMPLATE (e.g. i18next={{namespace}}/{{lang}}.json)"
                )
            })?;
            let format: Format = format.trim().parse().map_err(|_| {
                format!(
                    "unknown format '{}': one of {}",
                    format.trim(),
                    Format::ALL.map(Format::name).join(", ")
                )
            })?;
            let template = PathTemplate::parse(template.trim()).map_err(|e| e.to_string())?;
            templates.retain(|(f, _)| *f != format);
            templates.push((format, template));
        }
        Ok(Layouts { templates })
    }

    /// The template of `format`, if one is configured.
    pub fn of(&self, format: Format) -> Option<&PathTemplate> {
        (self.templates.iter())
            .find(|(f, _)| *f == format)
            .map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(template: &str, locale: &str, format: Format) -> Result<String, TemplateError> {
        PathTemplate::parse(template)?
            .expand(&Values {
                locale,
                namespace: "common",
                format,
            })
            .map(|p| p.display().to_string())
    }

    #[test]
    fn each_placeholder_takes_its_value() {
        let json = Format::Json;
        assert_eq!(
            path("{namespace}/{lang}.{ext}", "pl_BR", json).unwrap(),
            "common/pl.json"
        );
        assert_eq!(
            path("{locale}/{namespace}.json", "pt_BR", json).unwrap(),
            "pt_BR/common.json"
        );
        assert_eq!(
            path("{lang}-{region}.json", "pt_BR", json).unwrap(),
            "pt-BR.json"
        );
        assert_eq!(path("{lang}{region}.json", "de", json).unwrap(), "de.json");
        assert_eq!(
            path("res/{android}/{namespace}.xml", "pl_BR", Format::Android).unwrap(),
            "res/values-pl-rBR/common.xml"
        );
        assert_eq!(
            path("{apple}/{namespace}.strings", "pl_PL", Format::Ios).unwrap(),
            "pl.lproj/common.strings"
        );
        assert!(
            PathTemplate::parse("{namespace}/x")
                .unwrap()
                .names_namespace()
        );
        assert!(
            !PathTemplate::parse("{locale}.json")
                .unwrap()
                .names_namespace()
        );
    }

    #[test]
    fn bad_templates_and_paths_are_refused_naming_them() {
        let error = |template: &str, locale: &str| {
            path(template, locale, Format::Json)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("{lng}/{ns}.json", "en"),
            "the layout '{lng}/{ns}.json' has unknown placeholder(s) {lng}, {ns}: the \
             placeholders are {namespace}, {locale}, {lang}, {region}, {android}, {apple}, {ext}"
        );
        assert!(error("{locale.json", "en").contains("without its"));
        for outside in [
            "/abs/{locale}.json",
            "../{locale}.json",
            "a/../../{locale}.json",
            "a\\b.json",
            "",
        ] {
            assert!(
                error(outside, "en").contains("must stay inside the output folder"),
                "{outside}"
            );
        }
        assert!(error("{locale}/x.json", "..").contains("outside the output folder"));
        assert!(error("{locale}.json", "a/../../b").contains("outside the output folder"));
        assert!(error("{lang}.json", "Polish (PL)").contains("not a language tag"));
        let template = PathTemplate::parse("{locale}.json").unwrap();
        assert_eq!(
            template
                .check_namespaces(&["common".into(), "home".into()])
                .unwrap_err()
                .to_string(),
            "the layout '{locale}.json' does not name {namespace}, and the sheet has several \
             namespaces (common, home): put {namespace} in the path (e.g. {namespace}/{locale}.json)"
        );
        assert!(template.check_namespaces(&[]).is_ok());
    }

    #[test]
    fn layouts_are_per_format() {
        let layouts = Layouts::parse(&["i18next={namespace}/{lang}.json".to_owned()]).unwrap();
        assert_eq!(
            layouts.of(Format::I18next).map(PathTemplate::as_str),
            Some("{namespace}/{lang}.json")
        );
        assert_eq!(layouts.of(Format::Json), None);
        assert!(
            Layouts::parse(&["web=x".to_owned()])
                .unwrap_err()
                .starts_with("unknown format 'web'")
        );
        assert!(
            Layouts::parse(&["json={nope}".to_owned()])
                .unwrap_err()
                .contains("{nope}")
        );
    }
}
