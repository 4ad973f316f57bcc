// An app that fetches its texts at run time from depot (SPEC §14), with the real client
// library, configured as the README shows. The Rust tests (tests/delivery_sdks.rs) drive it:
//
//   node delivery.mjs < lines
//
// The first stdin line is a JSON object:
//   {"library": "i18next-http" | "i18next-multi" | "locize" | "tolgee",
//    "base": "http://127.0.0.1:PORT", "channel": "production", "lngs": ["en", "de"],
//    "ns": ["common", "home", "settings"], "calls": [[LNG, NS, KEY, OPTIONS], ...],
//    "private": false, "apiKey": "...", "projectId": "depot"}
// The script loads the texts and prints one JSON line: {"texts": [t() of each call], ...}
// (locize adds the options its backend derived from /languages: supportedLngs,
// referenceLng). Each further line "reload" makes the app load its texts again (i18next:
// reloadResources(); Tolgee: a new instance, as an app started again) and prints the texts
// again. Exit 1 with the error on stderr when the library fails.

import readline from "node:readline";
import i18next from "i18next";
import HttpBackend from "i18next-http-backend";
import MultiloadAdapter from "i18next-multiload-backend-adapter";
import LocizeBackend from "i18next-locize-backend";
import { Tolgee, BackendFetch } from "@tolgee/web";
import { FormatIcu } from "@tolgee/format-icu";

function fail(error) {
  console.error(error && error.stack ? error.stack : String(error));
  process.exit(1);
}

// i18next: every language and namespace loaded up front, no fallback language (a text
// missing would show as its key, not as another language's text).
function i18nextOptions(config) {
  return {
    lng: config.lngs[0],
    preload: config.lngs,
    fallbackLng: false,
    load: "currentOnly",
    ns: config.ns,
    defaultNS: config.ns[0],
    interpolation: { escapeValue: false },
  };
}

async function i18nextApp(config) {
  const app = i18next.createInstance();
  if (config.library === "i18next-http") {
    // README: i18next-http-backend
    app.use(HttpBackend);
    await app.init({
      ...i18nextOptions(config),
      backend: {
        loadPath: `${config.base}/i18next/${config.channel}/{{lng}}/{{ns}}.json`,
      },
    });
  } else {
    // README: i18next-http-backend's multi-load form
    app.use(MultiloadAdapter);
    await app.init({
      ...i18nextOptions(config),
      backend: {
        backend: HttpBackend,
        backendOption: {
          loadPath: `${config.base}/i18next/${config.channel}?lng={{lng}}&ns={{ns}}`,
        },
      },
    });
  }
  return {
    texts: () => config.calls.map(([lng, ns, key, options]) => app.t(key, { lng, ns, ...options })),
    reload: () => app.reloadResources(),
  };
}

async function locizeApp(config) {
  // README: i18next-locize-backend; `version` is the channel
  const backendOptions = {
    projectId: config.projectId,
    version: config.channel,
    loadPath: `${config.base}/locize/{{projectId}}/{{version}}/{{lng}}/{{ns}}`,
    privatePath: `${config.base}/locize/private/{{projectId}}/{{version}}/{{lng}}/{{ns}}`,
    getLanguagesPath: `${config.base}/locize/languages/{{projectId}}`,
    private: Boolean(config.private),
    apiKey: config.apiKey,
  };
  // The backend asks /languages first: the languages at least 90% translated in this
  // channel (its translatedPercentageThreshold) become supportedLngs.
  const { backend, derived } = await new Promise((resolve, reject) => {
    const backend = new LocizeBackend(backendOptions, (error, options) => {
      if (error) reject(error);
      else resolve({ backend, derived: options });
    });
  });
  const app = i18next.createInstance();
  app.use(backend);
  await app.init({
    ...i18nextOptions(config),
    fallbackLng: false,
    supportedLngs: derived.supportedLngs,
    preload: derived.supportedLngs,
    // the backend is initialised again by i18next: its options again
    backend: backendOptions,
  });
  return {
    texts: () => config.calls.map(([lng, ns, key, options]) => app.t(key, { lng, ns, ...options })),
    reload: () => app.reloadResources(),
    extra: { supportedLngs: derived.supportedLngs, referenceLng: derived.referenceLng, load: derived.load },
  };
}

async function tolgeeApp(config) {
  const start = async () => {
    // README: @tolgee/web with BackendFetch (and FormatIcu for plurals)
    const tolgee = Tolgee()
      .use(BackendFetch({ prefix: `${config.base}/tolgee/${config.channel}` }))
      .use(FormatIcu())
      .init({
        language: config.lngs[0],
        availableLanguages: config.lngs,
        ns: config.ns,
        defaultNs: config.ns[0],
      });
    await tolgee.run();
    for (const lng of config.lngs.slice(1)) {
      await tolgee.changeLanguage(lng);
    }
    return tolgee;
  };
  let tolgee = await start();
  return {
    texts: () =>
      config.calls.map(([lng, ns, key, options]) =>
        tolgee.t(key, { ns, language: lng, noWrap: true, ...options })
      ),
    reload: async () => {
      tolgee.stop();
      tolgee = await start();
    },
  };
}

const lines = readline.createInterface({ input: process.stdin });
let app;
let config;
for await (const line of lines) {
  try {
    if (!app) {
      config = JSON.parse(line);
      app =
        config.library === "locize"
          ? await locizeApp(config)
          : config.library === "tolgee"
            ? await tolgeeApp(config)
            : await i18nextApp(config);
    } else if (line.trim() === "reload") {
      await app.reload();
    } else {
      fail(`unknown command ${line}`);
    }
    console.log(JSON.stringify({ texts: app.texts(), ...(app.extra || {}) }));
  } catch (error) {
    fail(error);
  }
}
process.exit(0);
