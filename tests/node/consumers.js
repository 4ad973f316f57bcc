// Reads stdin and prints what a JavaScript consumer makes of it, as JSON on stdout:
//   node consumers.js icu   stdin: a JSON array of ICU MessageFormat strings;
//                           out: the formatjs parser's AST of each (exit 1 on the first
//                           string it refuses, naming it)
//   node consumers.js yaml  stdin: a YAML document; out: what js-yaml loads
const { parse } = require("@formatjs/icu-messageformat-parser");
const yaml = require("js-yaml");

const input = require("fs").readFileSync(0, "utf8");
const mode = process.argv[2];
if (mode === "icu") {
  const asts = JSON.parse(input).map((message) => {
    try {
      return parse(message);
    } catch (e) {
      console.error(`formatjs refused ${JSON.stringify(message)}: ${e.message}`);
      process.exit(1);
    }
  });
  process.stdout.write(JSON.stringify(asts));
} else if (mode === "yaml") {
  process.stdout.write(JSON.stringify(yaml.load(input)));
} else {
  console.error("usage: node consumers.js icu|yaml < input");
  process.exit(2);
}
