//! Names the settings hold and check, one floor below config: the name each format or SDK
//! layout gives a locale (`translations.locales`), the path templates of generate's files
//! (`translations.layouts`), and the rule for a channel's name.

pub mod channel_name;
pub mod locale_names;
pub mod path_template;
