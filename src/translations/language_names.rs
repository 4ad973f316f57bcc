//! The English and native names of languages, for the lists clients show in a language
//! picker (the locize layout's `/languages`, SPEC §14). The languages apps ship most (ISO
//! 639-1 codes, names as CLDR writes them); any other is named by its code.

/// (code, English name, native name), by code.
const NAMES: &[(&str, &str, &str)] = &[
    ("af", "Afrikaans", "Afrikaans"),
    ("am", "Amharic", "አማርኛ"),
    ("ar", "Arabic", "العربية"),
    ("az", "Azerbaijani", "azərbaycan"),
    ("be", "Belarusian", "беларуская"),
    ("bg", "Bulgarian", "български"),
    ("bn", "Bangla", "বাংলা"),
    ("bs", "Bosnian", "bosanski"),
    ("ca", "Catalan", "català"),
    ("cs", "Czech", "čeština"),
    ("cy", "Welsh", "Cymraeg"),
    ("da", "Danish", "dansk"),
    ("de", "German", "Deutsch"),
    ("el", "Greek", "Ελληνικά"),
    ("en", "English", "English"),
    ("eo", "Esperanto", "Esperanto"),
    ("es", "Spanish", "español"),
    ("et", "Estonian", "eesti"),
    ("eu", "Basque", "euskara"),
    ("fa", "Persian", "فارسی"),
    ("fi", "Finnish", "suomi"),
    ("fil", "Filipino", "Filipino"),
    ("fr", "French", "français"),
    ("ga", "Irish", "Gaeilge"),
    ("gl", "Galician", "galego"),
    ("gu", "Gujarati", "ગુજરાતી"),
    ("he", "Hebrew", "עברית"),
    ("hi", "Hindi", "हिन्दी"),
    ("hr", "Croatian", "hrvatski"),
    ("hu", "Hungarian", "magyar"),
    ("hy", "Armenian", "հայերեն"),
    ("id", "Indonesian", "Indonesia"),
    ("is", "Icelandic", "íslenska"),
    ("it", "Italian", "italiano"),
    ("ja", "Japanese", "日本語"),
    ("ka", "Georgian", "ქართული"),
    ("kk", "Kazakh", "қазақ тілі"),
    ("km", "Khmer", "ខ្មែរ"),
    ("kn", "Kannada", "ಕನ್ನಡ"),
    ("ko", "Korean", "한국어"),
    ("ky", "Kyrgyz", "кыргызча"),
    ("lo", "Lao", "ລາວ"),
    ("lt", "Lithuanian", "lietuvių"),
    ("lv", "Latvian", "latviešu"),
    ("mk", "Macedonian", "македонски"),
    ("ml", "Malayalam", "മലയാളം"),
    ("mn", "Mongolian", "монгол"),
    ("mr", "Marathi", "मराठी"),
    ("ms", "Malay", "Melayu"),
    ("mt", "Maltese", "Malti"),
    ("my", "Burmese", "မြန်မာ"),
    ("nb", "Norwegian Bokmål", "norsk bokmål"),
    ("ne", "Nepali", "नेपाली"),
    ("nl", "Dutch", "Nederlands"),
    ("nn", "Norwegian Nynorsk", "norsk nynorsk"),
    ("no", "Norwegian", "norsk"),
    ("pa", "Punjabi", "ਪੰਜਾਬੀ"),
    ("pl", "Polish", "polski"),
    ("ps", "Pashto", "پښتو"),
    ("pt", "Portuguese", "português"),
    ("ro", "Romanian", "română"),
    ("ru", "Russian", "русский"),
    ("si", "Sinhala", "සිංහල"),
    ("sk", "Slovak", "slovenčina"),
    ("sl", "Slovenian", "slovenščina"),
    ("sq", "Albanian", "shqip"),
    ("sr", "Serbian", "српски"),
    ("sv", "Swedish", "svenska"),
    ("sw", "Swahili", "Kiswahili"),
    ("ta", "Tamil", "தமிழ்"),
    ("te", "Telugu", "తెలుగు"),
    ("th", "Thai", "ไทย"),
    ("tr", "Turkish", "Türkçe"),
    ("uk", "Ukrainian", "українська"),
    ("ur", "Urdu", "اردو"),
    ("uz", "Uzbek", "o‘zbek"),
    ("vi", "Vietnamese", "Tiếng Việt"),
    ("zh", "Chinese", "中文"),
    ("zu", "Zulu", "isiZulu"),
];

/// The English and native names of a BCP 47 tag (`pt-BR`): the language's names, with
/// the rest of the tag in parentheses (`Portuguese (BR)`); the tag itself for a language
/// not in the table.
pub fn names(tag: &str) -> (String, String) {
    let mut parts = tag.splitn(2, '-');
    let language = parts.next().unwrap_or_default();
    let rest = parts.next();
    let found = NAMES
        .binary_search_by(|(code, _, _)| code.cmp(&language))
        .ok()
        .map(|i| NAMES[i]);
    let Some((_, english, native)) = found else {
        return (tag.to_owned(), tag.to_owned());
    };
    match rest {
        None => (english.to_owned(), native.to_owned()),
        Some(rest) => (format!("{english} ({rest})"), format!("{native} ({rest})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_names_follow_the_tag() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(names("de"), ("German".into(), "Deutsch".into()));
        assert_eq!(
            names("pt-BR"),
            ("Portuguese (BR)".into(), "português (BR)".into())
        );
        assert_eq!(names("tlh"), ("tlh".into(), "tlh".into()));
    }
}
