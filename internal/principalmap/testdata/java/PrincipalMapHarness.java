import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.security.kerberos.KerberosName;
import org.apache.kafka.common.security.kerberos.KerberosShortNamer;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * Maps principals with Kafka's own classes, for principalmap's differential
 * test. Run with the Java source launcher and Kafka's jars on the class
 * path; reads one case a line from standard input, every field hex-encoded
 * UTF-8:
 *
 *   ssl RULES DN            ConfigDef STRING value of ssl.principal.mapping.rules,
 *                           SslPrincipalMapper.fromRules(rules).getName(dn)
 *   krb REALM RULES NAME    ConfigDef LIST value of sasl.kerberos.principal.to.local.rules,
 *                           KerberosShortNamer.fromUnparsedRules(realm, rules)
 *                               .shortName(KerberosName.parse(name))
 *
 * and writes one line for each: "ok HEX" with the name, or "err CLASS" with
 * the simple name of the exception thrown.
 */
public class PrincipalMapHarness {
    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ", -1);
            String result;
            try {
                String name;
                if (f[0].equals("ssl")) {
                    String rules = (String) ConfigDef.parseType("ssl.principal.mapping.rules", str(hex, f[1]), ConfigDef.Type.STRING);
                    name = SslPrincipalMapper.fromRules(rules).getName(str(hex, f[2]));
                } else {
                    @SuppressWarnings("unchecked")
                    List<String> rules = (List<String>) ConfigDef.parseType("sasl.kerberos.principal.to.local.rules", str(hex, f[2]), ConfigDef.Type.LIST);
                    name = KerberosShortNamer.fromUnparsedRules(str(hex, f[1]), rules).shortName(KerberosName.parse(str(hex, f[3])));
                }
                result = "ok " + hex.formatHex(name.getBytes(StandardCharsets.UTF_8));
            } catch (Throwable e) {
                result = "err " + e.getClass().getSimpleName();
            }
            out.println(result);
        }
        out.flush();
    }

    static String str(HexFormat hex, String s) {
        return new String(hex.parseHex(s), StandardCharsets.UTF_8);
    }
}
