// Reads .properties files back the way Java apps do, for tests/properties_resx.rs. Prints
// JSON on stdout (every character outside printable ASCII as a JSON "backslash u" escape, so the
// test sees exactly the UTF-16 units Java holds). Usage:
//   java ReadBack load FILE...                 Properties.load(InputStream) of each file:
//                                              {"FILE": {"key": "value", ...}, ...}
//   java ReadBack bundle DIR BASE TAG...       ResourceBundle.getBundle(BASE, TAG) from the
//                                              files in DIR, without fallback to the default
//                                              locale (TAG "" = the root bundle): per TAG the
//                                              bundle's own locale and keys:
//                                              {"TAG": {"locale": "...", "texts": {...}}, ...}
//   java ReadBack format DIR BASE TAG KEY ARG...   MessageFormat of the bundle's KEY in the
//                                              TAG locale with ARGs (an ARG "int:N" is the
//                                              Integer N): {"text": "..."}
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.PropertyResourceBundle;
import java.util.ResourceBundle;
import java.util.TreeMap;

public class ReadBack {
    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        switch (args[0]) {
            case "load": {
                out.append('{');
                for (int i = 1; i < args.length; i++) {
                    Properties p = new Properties();
                    try (InputStream in = new FileInputStream(args[i])) {
                        p.load(in);
                    }
                    Map<String, String> texts = new TreeMap<>();
                    for (String key : p.stringPropertyNames()) {
                        texts.put(key, p.getProperty(key));
                    }
                    if (i > 1) out.append(',');
                    json(out, args[i]);
                    out.append(':');
                    json(out, texts);
                }
                out.append('}');
                break;
            }
            case "bundle": {
                out.append('{');
                for (int i = 3; i < args.length; i++) {
                    ResourceBundle bundle = bundle(args[1], args[2], args[i]);
                    Map<String, String> texts = new TreeMap<>();
                    for (String key : Collections.list(bundle.getKeys())) {
                        // the bundle's own keys, not those its parents add
                        Object own = ((PropertyResourceBundle) bundle).handleGetObject(key);
                        if (own != null) texts.put(key, bundle.getString(key));
                    }
                    if (i > 3) out.append(',');
                    json(out, args[i]);
                    out.append(":{\"locale\":");
                    json(out, bundle.getLocale().toLanguageTag());
                    out.append(",\"texts\":");
                    json(out, texts);
                    out.append('}');
                }
                out.append('}');
                break;
            }
            case "format": {
                Locale locale = Locale.forLanguageTag(args[3]);
                String pattern = bundle(args[1], args[2], args[3]).getString(args[4]);
                List<Object> values = new ArrayList<>();
                for (int i = 5; i < args.length; i++) {
                    values.add(args[i].startsWith("int:")
                        ? (Object) Integer.valueOf(args[i].substring(4))
                        : args[i]);
                }
                String text = new MessageFormat(pattern, locale).format(values.toArray());
                out.append("{\"text\":");
                json(out, text);
                out.append('}');
                break;
            }
            default:
                throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        System.out.print(out);
    }

    static ResourceBundle bundle(String dir, String base, String tag) throws Exception {
        URLClassLoader loader =
            new URLClassLoader(new URL[] {Paths.get(dir).toUri().toURL()}, null);
        Locale locale = tag.isEmpty() ? Locale.ROOT : Locale.forLanguageTag(tag);
        return ResourceBundle.getBundle(base, locale, loader,
            ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
    }

    static void json(StringBuilder out, Map<String, String> map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : map.entrySet()) {
            if (!first) out.append(',');
            first = false;
            json(out, e.getKey());
            out.append(':');
            json(out, e.getValue());
        }
        out.append('}');
    }

    static void json(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
                out.append(c);
            } else {
                out.append(String.format("\\u%04X", (int) c));
            }
        }
        out.append('"');
    }
}
