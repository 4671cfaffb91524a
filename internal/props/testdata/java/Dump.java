// Dump prints what java.util.Properties.load(InputStream) reads from each
// file given, in the form props_test.go compares with: one "key = value"
// line per key in sorted order, every character outside '!'..'~' (and '\',
// '=') written as backslash-u and 4 hex digits; or "error: <message>" when load throws.
//
// Regenerate the golden files (Java 11+, no build needed):
//
//	cd internal/props/testdata/java
//	for f in *.properties; do java Dump.java "$f" > "${f%.properties}.golden"; done
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Properties;
import java.util.TreeSet;

public class Dump {
    static String esc(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c > ' ' && c <= '~' && c != '\\' && c != '=') {
                b.append(c);
            } else {
                b.append(String.format("%cu%04X", (char) 92, (int) c));
            }
        }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        try (InputStream in = new FileInputStream(args[0])) {
            p.load(in);
        } catch (IllegalArgumentException e) {
            System.out.println("error: " + e.getMessage());
            return;
        }
        for (String k : new TreeSet<>(p.stringPropertyNames())) {
            System.out.println(esc(k) + " = " + esc(p.getProperty(k)));
        }
    }
}
