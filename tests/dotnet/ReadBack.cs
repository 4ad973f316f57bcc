// Reads .resources compiled by resgen from generated .resx files back the way .NET apps
// do, and .resx files the way MSBuild's resx reader does, for tests/properties_resx.rs.
// Prints JSON on stdout (every character outside printable ASCII as a \uXXXX escape, so
// the test sees exactly the UTF-16 units .NET holds). Usage:
//   mono ReadBack.exe manager DIR BASE CULTURE...   a ResourceManager over DIR's
//       BASE[.CULTURE].resources files (CULTURE "" = the neutral ones): per culture the
//       resource set's own strings, each also asked of the manager with GetString:
//       {"CULTURE": {"Name": "text", ...}, ...}
//   mono ReadBack.exe resources DIR BASE CULTURE...   like manager, for a real app's
//       resources (tests/real_apps.rs): a resource that is not a string (an image, an icon,
//       bytes from a file reference) reads as "<its type name>"
//   mono ReadBack.exe format DIR BASE CULTURE NAME ARG...   string.Format of the
//       manager's NAME in CULTURE with ARGs (an ARG "int:N" is the Int32 N): {"text": "..."}
//   mono ReadBack.exe msbuild FILE...   each .resx as MSBuild reads it
//       (MSBuildResXReader.ReadResources: an XmlTextReader with WhitespaceHandling.None,
//       loaded into an XDocument with PreserveWhitespace, each <data>'s <value>):
//       {"FILE": {"Name": "text", ...}, ...}
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Resources;
using System.Text;
using System.Xml;
using System.Xml.Linq;

class ReadBack {
    static int Main(string[] args) {
        var output = new StringBuilder();
        switch (args[0]) {
            case "manager":
            case "resources": {
                var manager = ResourceManager.CreateFileBasedResourceManager(args[2], args[1], null);
                output.Append('{');
                for (int i = 3; i < args.Length; i++) {
                    var culture = CultureInfo.GetCultureInfo(args[i]);
                    var set = manager.GetResourceSet(culture, true, false);
                    if (set == null) throw new Exception("no resources for '" + args[i] + "'");
                    var texts = new SortedDictionary<string, string>(StringComparer.Ordinal);
                    foreach (DictionaryEntry e in set) {
                        var name = (string)e.Key;
                        if (args[0] == "resources" && !(e.Value is string)) {
                            texts[name] = "<" + e.Value.GetType().FullName + ">";
                            continue;
                        }
                        var text = (string)e.Value;
                        var asked = manager.GetString(name, culture);
                        if (asked != text) {
                            throw new Exception("GetString(" + name + ") gave " + asked + ", the set " + text);
                        }
                        texts[name] = text;
                    }
                    if (i > 3) output.Append(',');
                    Json(output, args[i]);
                    output.Append(':');
                    Json(output, texts);
                }
                output.Append('}');
                break;
            }
            case "format": {
                var manager = ResourceManager.CreateFileBasedResourceManager(args[2], args[1], null);
                var culture = CultureInfo.GetCultureInfo(args[3]);
                var values = args.Skip(5)
                    .Select(a => a.StartsWith("int:") ? (object)int.Parse(a.Substring(4)) : a)
                    .ToArray();
                var text = string.Format(culture, manager.GetString(args[4], culture), values);
                output.Append("{\"text\":");
                Json(output, text);
                output.Append('}');
                break;
            }
            case "msbuild": {
                output.Append('{');
                for (int i = 1; i < args.Length; i++) {
                    var texts = new SortedDictionary<string, string>(StringComparer.Ordinal);
                    using (var stream = File.OpenRead(args[i]))
                    using (var reader = new XmlTextReader(stream)) {
                        reader.WhitespaceHandling = WhitespaceHandling.None;
                        var doc = XDocument.Load(reader, LoadOptions.PreserveWhitespace);
                        foreach (var data in doc.Element("root").Elements("data")) {
                            texts[data.Attribute("name").Value] = data.Element("value").Value;
                        }
                    }
                    if (i > 1) output.Append(',');
                    Json(output, args[i]);
                    output.Append(':');
                    Json(output, texts);
                }
                output.Append('}');
                break;
            }
            default:
                throw new ArgumentException("unknown mode " + args[0]);
        }
        Console.Out.Write(output.ToString());
        return 0;
    }

    static void Json(StringBuilder output, IDictionary<string, string> map) {
        output.Append('{');
        bool first = true;
        foreach (var e in map) {
            if (!first) output.Append(',');
            first = false;
            Json(output, e.Key);
            output.Append(':');
            Json(output, e.Value);
        }
        output.Append('}');
    }

    static void Json(StringBuilder output, string s) {
        output.Append('"');
        foreach (char c in s) {
            if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') output.Append(c);
            else output.AppendFormat("\\u{0:X4}", (int)c);
        }
        output.Append('"');
    }
}
