// Reads stdin and prints what a JavaScript consumer makes of it, as JSON on stdout:
//   node consumers.js icu        stdin: a JSON array of ICU MessageFormat strings;
//                                out: the formatjs parser's AST of each (exit 1 on the first
//                                string it refuses, naming it)
//   node consumers.js yaml       stdin: a YAML document; out: what js-yaml loads
//   node consumers.js arb        stdin: {"files": {NAME: TEXT}, "template": NAME, "useEscaping":
//                                BOOL}: a folder of ARB files and the app's l10n.yaml
//                                `use-escaping`; checks gen-l10n's rules (below) and parses
//                                every message as gen-l10n's own parser does (a port of it,
//                                below); out: {NAME: {ID: parts}} (exit 1 naming the first
//                                rule broken); with "infer": true, an undeclared
//                                placeholder's type is inferred as gen-l10n does (real apps'
//                                files, tests/real_apps.rs)
//   node consumers.js i18next    stdin: {"resources": {LNG: {NS: {...}}}, "calls":
//                                [[LNG, KEY, OPTIONS]]}; out: i18next's t() of each call
//   node consumers.js xcstrings  stdin: a String Catalog; out: what the locize-xcstrings
//                                converter reads from it (xcstrings2locize)
//   node consumers.js i18next-app  stdin: {"options": INIT OPTIONS, "resources": {LNG: {NS:
//                                {...}}}, "calls": [[LNG, NS, KEY, VALUES?]], "release"?: "23"}:
//                                i18next (23: the last release reading JSON v3) initialised with
//                                the app's own options (tests/real_apps.rs); out: t() of each
//                                call (with VALUES such as {"count": 2, "context": "male"}),
//                                null when i18next has no such key; an interpolation
//                                with no value reads as ⟦its trimmed name⟧
//   node consumers.js locale-files  stdin: {"files": [TEXT], "calls": [[LNG, KEY]]}: a web
//                                app's json files that each hold their locale as the one
//                                top key ({"en": {...}}), read with JSON.parse and merged
//                                into one object of locales (as vue-i18n's `messages`), each
//                                locale i18next's resources; out: t() of each call, null when
//                                the locale or the key is missing
const { parse } = require("@formatjs/icu-messageformat-parser");
const yaml = require("js-yaml");

const input = require("fs").readFileSync(0, "utf8");
const mode = process.argv[2];

function fail(message) {
  console.error(message);
  process.exit(1);
}

// ---------------------------------------------------------------- gen-l10n's parser
// A port of Flutter's flutter_tools lib/src/localizations/message_parser.dart (`Parser`:
// `lexIntoTokens`, the grammar `parseIntoTree` follows, `checkExtraRules`), without
// `relax-syntax`. With `use-escaping` an apostrophe quotes (`'{'`, `''` is one, a lone one
// is an error); without it (gen-l10n's default) an apostrophe is text and every brace is
// syntax. A message comes out as parts: {t: text} | {a: argument} | {a, f: [date|time,
// format]} | {p: argument, o: {CASE: parts}} | {s: argument, o: {CASE: parts}}; `#` is text
// (gen-l10n has no such token), a plural's `=1` case is named "=1".

// `lexIntoTokens`: [{type, value, at}]
function genL10nTokens(message, useEscaping) {
  const sticky = (source) => new RegExp(source, "y");
  const escapedString = sticky("'[^']*'");
  const unescapedString = sticky("[^{}']+");
  const normalString = sticky("[^{}]+");
  const brace = sticky("[{}]");
  // in order of precedence
  const matchers = [
    ["empty", sticky("\\s+")],
    ["number", sticky("[0-9]+")],
    ["comma", sticky(",")],
    ["equalSign", sticky("=")],
    ["colon", sticky(":")],
    ["identifier", sticky("[a-zA-Z0-9|_]+")],
  ];
  const keywords = new Set(["plural", "select", "other", "date", "time"]);
  const tokens = [];
  let isString = true;
  let at = 0;
  const match = (re) => {
    re.lastIndex = at;
    const m = re.exec(message);
    return m === null ? null : m[0];
  };
  const push = (type, value) => {
    tokens.push({ type, value, at });
    at += value.length;
  };
  // every brace toggles between text and syntax
  const braceOr = (what) => {
    const m = match(brace);
    if (m === null) throw new Error(`ICU Lexing Error: ${what} (at ${at})`);
    push(m === "{" ? "openBrace" : "closeBrace", m);
    isString = !isString;
  };
  while (at < message.length) {
    let m;
    if (isString) {
      if (useEscaping) {
        if ((m = match(escapedString)) !== null) {
          let value;
          if (m === "''") value = "'";
          // a quoted run right after an apostrophe keeps its opening one
          else if (at > 1 && message[at - 1] === "'") value = m.slice(0, -1);
          else value = m.slice(1, -1);
          tokens.push({ type: "string", value, at });
          at += m.length;
        } else if ((m = match(unescapedString)) !== null) push("string", m);
        else braceOr("Unmatched single quotes.");
      } else if ((m = match(normalString)) !== null) push("string", m);
      else braceOr("Unmatched single quotes.");
      continue;
    }
    let type = null;
    for (const [matched, re] of matchers) {
      if ((m = match(re)) !== null) {
        type = matched;
        break;
      }
    }
    if (m === null) braceOr("Unexpected character.");
    else if (type === "empty") at += m.length;
    else {
      // right after `{` any word is an identifier, elsewhere a keyword is one
      if (!(type === "identifier" && tokens[tokens.length - 1].type === "openBrace") && keywords.has(m)) {
        type = m;
      }
      push(type, m);
    }
  }
  return tokens;
}

// `parseIntoTree` and `checkExtraRules`, as parts. Tokens left after the top-level message
// (a `}` that closes nothing) are ignored, as gen-l10n's parser ignores them.
function genL10nParts(message, useEscaping) {
  const tokens = genL10nTokens(message, useEscaping);
  let k = 0;
  const take = (type) => {
    const token = tokens[k];
    if (token === undefined) throw new Error(`ICU Syntax Error: Expected "${type}" but found no tokens.`);
    if (token.type !== type) throw new Error(`ICU Syntax Error: Expected "${type}" but found "${token.value}".`);
    k += 1;
    return token.value;
  };
  const is = (offset, ...types) => tokens[k + offset] !== undefined && types.includes(tokens[k + offset].type);
  function parts() {
    const out = [];
    while (k < tokens.length && tokens[k].type !== "closeBrace") {
      if (is(0, "string")) {
        const text = tokens[k++].value;
        if (out.length && out[out.length - 1].t !== undefined) out[out.length - 1].t += text;
        else out.push({ t: text });
        continue;
      }
      const kind = tokens[k + 3] && tokens[k + 3].type;
      take("openBrace");
      const name = take("identifier");
      if (kind === "plural" || kind === "select") {
        take("comma");
        take(kind);
        take("comma");
        const options = {};
        const cases = kind === "plural" ? ["identifier", "other", "equalSign"] : ["identifier", "number", "other"];
        while (is(0, ...cases)) {
          const identifier = is(0, "identifier");
          const selector = is(0, "equalSign") ? (take("equalSign"), "=" + take("number")) : tokens[k++].value;
          if (kind === "plural" && identifier && !["zero", "one", "two", "few", "many"].includes(selector)) {
            throw new Error('ICU Syntax Error: Plural expressions case must be one of "zero", "one", "two", "few", "many", or "other".');
          }
          take("openBrace");
          options[selector] = parts();
          take("closeBrace");
        }
        take("closeBrace");
        if (options.other === undefined) {
          throw new Error(`ICU Syntax Error: ${kind === "plural" ? "Plural" : "Select"} expressions must have an "other" case.`);
        }
        out.push(kind === "plural" ? { p: name, o: options } : { s: name, o: options });
      } else if (kind === "date" || kind === "time") {
        take("comma");
        take(kind);
        take("comma");
        take("colon");
        take("colon");
        const format = take("identifier");
        take("closeBrace");
        out.push({ a: name, f: [kind, format] });
      } else {
        take("closeBrace");
        out.push({ a: name });
      }
    }
    return out;
  }
  return parts();
}

// The placeholders a message's parts use: [name, used in a plural].
function usedPlaceholders(parts, out) {
  for (const part of parts) {
    if (part.a !== undefined && part.f === undefined) out.push([part.a, false]);
    if (part.p !== undefined) {
      out.push([part.p, true]);
      for (const option of Object.values(part.o)) usedPlaceholders(option, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------- gen-l10n's rules
// From Flutter's flutter_tools, lib/src/localizations/: gen_l10n.dart
// (`_isValidGetterAndMethodName`, `loadResources`), gen_l10n_types.dart
// (`AppResourceBundle`, `AppResourceBundleCollection`, `Message._value`, `_attributes`,
// `_placeholders`, `_inferPlaceholders`, `Placeholder`).

// AppResourceBundle: the ISO 639-1 languages a file name's locale may have.
const ISO639 = new Set(
  ("aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu " +
    "cv cy da de dv dz ee el en eo es et eu fa ff fi fil fj fo fr fy ga gd gl gn gsw gu gv " +
    "ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn " +
    "ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd " +
    "ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg " +
    "si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk " +
    "ur uz ve vi vo wa wo xh yi yo za zh zu").split(" ")
);

// package:intl's Locale.tryParse(...).toString(), with '_' as gen-l10n writes it.
function canonicalLocale(code) {
  try {
    return Intl.getCanonicalLocales(code.replace(/_/g, "-"))[0].replace(/-/g, "_");
  } catch (e) {
    return null;
  }
}

// gen_l10n.dart `_isValidGetterAndMethodName`.
function validGetterName(name) {
  return (
    name.length > 0 &&
    name[0] !== "_" &&
    !/[^a-zA-Z_$\d]/.test(name) &&
    !/[A-Z]/.test(name[0]) &&
    !/\d/.test(name[0])
  );
}


function checkArb(files, templateName, infer, useEscaping) {
  const bundles = {};
  const locales = new Map();
  for (const [name, text] of Object.entries(files)) {
    // AppResourceBundleCollection: `(\w+)\.arb$`
    if (!/^\w+\.arb$/.test(name)) fail(`${name}: not an ARB file name gen-l10n reads`);
    let resources;
    try {
      resources = JSON.parse(text);
    } catch (e) {
      fail(`${name}: the arb file has the following formatting issue: ${e.message}`);
    }
    if (typeof resources !== "object" || resources === null || Array.isArray(resources)) {
      fail(`${name}: not a JSON object`);
    }
    const locale = resources["@@locale"];
    if (typeof locale !== "string") fail(`${name}: no "@@locale"`);
    // the file name's locale: after the first '_' from which the rest parses as a locale
    // of an ISO 639-1 language; it must equal @@locale
    const stem = name.slice(0, -".arb".length);
    for (let i = 0; i < stem.length; i++) {
      if (stem[i] !== "_") continue;
      const parsed = canonicalLocale(stem.slice(i + 1));
      if (parsed !== null && ISO639.has(parsed.split("_")[0])) {
        if (parsed !== locale) {
          fail(`${name}: the locale specified in @@locale (${locale}) and the arb filename (${parsed}) do not match`);
        }
        break;
      }
    }
    if (locales.has(locale)) fail(`${name}: multiple arb files with the same '${locale}' locale`);
    locales.set(locale, name);
    bundles[name] = resources;
  }
  // AppResourceBundleCollection: a locale with a script or country needs its language
  for (const locale of locales.keys()) {
    const language = locale.split("_")[0];
    if (!locales.has(language)) fail(`Arb file for a fallback, ${language}, does not exist (${locale})`);
  }
  const template = bundles[templateName];
  if (!template) fail(`no template ${templateName}`);
  const ids = Object.keys(template).filter((k) => !k.startsWith("@"));
  const read = {};
  for (const [name, resources] of Object.entries(bundles)) {
    read[name] = {};
    for (const [id, value] of Object.entries(resources)) {
      if (id.startsWith("@")) continue;
      if (typeof value !== "string") fail(`${name}: the value of "${id}" is not a string`);
      let parsed;
      try {
        parsed = genL10nParts(value, useEscaping);
      } catch (e) {
        fail(`${name}: gen-l10n (use-escaping: ${useEscaping}) refused ${id} ${JSON.stringify(value)}: ${e.message}`);
      }
      read[name][id] = parsed;
      if (!ids.includes(id)) continue;
      // every placeholder a message uses is declared in the template, with a type (a
      // plural's `num` or `int`)
      const attributes = template[`@${id}`];
      const declared = (attributes && attributes.placeholders) || {};
      for (const [placeholder, plural] of usedPlaceholders(parsed, [])) {
        const type = declared[placeholder] && declared[placeholder].type;
        // gen-l10n infers an undeclared placeholder's type (`_inferPlaceholderTypes`:
        // num in a plural, String in a select, else Object); depot always declares them
        if (infer && (typeof type !== "string" || type === "")) continue;
        if (typeof type !== "string" || type === "") {
          fail(`${name}: ${id} uses {${placeholder}}, which @${id}.placeholders declares with no type`);
        }
        if (plural && type !== "num" && type !== "int") {
          fail(`${name}: ${id}: placeholders used in plurals must be of type 'num' or 'int'`);
        }
      }
    }
  }
  for (const id of ids) {
    if (!validGetterName(id)) fail(`Invalid ARB resource name "${id}" in ${templateName}`);
    const attributes = template[`@${id}`];
    if (attributes === undefined) continue;
    if (typeof attributes !== "object" || attributes === null) fail(`@${id} is not a map`);
    if (attributes.description !== undefined && typeof attributes.description !== "string") {
      fail(`The description for "@${id}" is not a properly formatted String`);
    }
    for (const [placeholder, value] of Object.entries(attributes.placeholders || {})) {
      if (typeof value !== "object" || value === null) fail(`@${id}.${placeholder} is not a map`);
      for (const [attribute, v] of Object.entries(value)) {
        if (typeof v !== "string" || v === "") fail(`@${id}.${placeholder}.${attribute} must be a non-empty string`);
      }
    }
  }
  return read;
}

async function main() {
  if (mode === "icu") {
    const asts = JSON.parse(input).map((message) => {
      try {
        return parse(message);
      } catch (e) {
        fail(`formatjs refused ${JSON.stringify(message)}: ${e.message}`);
      }
    });
    process.stdout.write(JSON.stringify(asts));
  } else if (mode === "yaml") {
    process.stdout.write(JSON.stringify(yaml.load(input)));
  } else if (mode === "arb") {
    const { files, template, infer, useEscaping } = JSON.parse(input);
    if (typeof useEscaping !== "boolean") fail("arb: give useEscaping, the app's l10n.yaml use-escaping (true or false)");
    process.stdout.write(JSON.stringify(checkArb(files, template, infer === true, useEscaping)));
  } else if (mode === "i18next") {
    const i18next = require("i18next");
    const { resources, calls } = JSON.parse(input);
    const instance = i18next.createInstance();
    await instance.init({ resources, lng: Object.keys(resources)[0], fallbackLng: false });
    process.stdout.write(
      JSON.stringify(calls.map(([lng, key, options]) => instance.t(key, { ...options, lng })))
    );
  } else if (mode === "i18next-app") {
    const { options, resources, calls, release } = JSON.parse(input);
    // an app on JSON v3 (KEY_plural) runs i18next 23, the last to read it
    const i18next = require(release === "23" ? "i18next-v23" : "i18next");
    const instance = i18next.createInstance();
    const missingInterpolationHandler = (text, match) => `⟦${match[1].trim()}⟧`;
    await instance.init({ ...options, missingInterpolationHandler, resources });
    process.stdout.write(
      JSON.stringify(
        calls.map(([lng, ns, key, values]) =>
          instance.exists(key, { lng, ns, ...values })
            ? instance.t(key, { lng, ns, ...values })
            : null
        )
      )
    );
  } else if (mode === "locale-files") {
    const i18next = require("i18next");
    const { files, calls } = JSON.parse(input);
    const messages = Object.assign({}, ...files.map((text) => JSON.parse(text)));
    const resources = {};
    for (const [lng, tree] of Object.entries(messages)) resources[lng] = { translation: tree };
    const instance = i18next.createInstance();
    await instance.init({ resources, fallbackLng: false });
    process.stdout.write(
      JSON.stringify(
        calls.map(([lng, key]) => (instance.exists(key, { lng }) ? instance.t(key, { lng }) : null))
      )
    );
  } else if (mode === "xcstrings") {
    const { xcstrings2locize } = require("locize-xcstrings");
    process.stdout.write(JSON.stringify(xcstrings2locize(input)));
  } else {
    console.error("usage: node consumers.js icu|yaml|arb|i18next|i18next-app|locale-files|xcstrings < input");
    process.exit(2);
  }
}

main().catch((e) => fail(e.stack || String(e)));
