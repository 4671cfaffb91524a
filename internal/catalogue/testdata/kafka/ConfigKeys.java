// ConfigKeys prints every broker and topic config key a Kafka release
// defines, from the release's own ConfigDefs (kafka.server.KafkaConfig and
// org.apache.kafka.storage.internals.log.LogConfig), with the lower bound of
// keys whose validator is a range "[min,...]". The catalogue's tests compare
// the removed-key and floor tables with these lists. Regenerate with the
// test bed's jars (testbed/testbed.sh fetch) or any release's runtime
// classpath:
//
//	javac -d /tmp ConfigKeys.java
//	java -cp "/tmp:/work/main/.testbed/lib41/*" ConfigKeys > configdef-4.1.1.txt
import java.util.*;

public class ConfigKeys {
  public static void main(String[] args) throws Exception {
    Class<?> kc = Class.forName("kafka.server.KafkaConfig");
    Object broker;
    try { broker = kc.getMethod("configDef").invoke(null); } catch (NoSuchMethodException e) { broker = kc.getField("configDef").get(null); }
    Class<?> lc = Class.forName("org.apache.kafka.storage.internals.log.LogConfig");
    java.lang.reflect.Field f = lc.getDeclaredField("CONFIG");
    f.setAccessible(true);
    print("broker", broker);
    print("topic", f.get(null));
  }

  @SuppressWarnings("unchecked")
  static void print(String scope, Object def) throws Exception {
    Map<String, ?> keys = (Map<String, ?>) def.getClass().getMethod("configKeys").invoke(def);
    for (String name : new TreeSet<>(keys.keySet())) {
      Object k = keys.get(name);
      Object v = k.getClass().getField("validator").get(k);
      String line = scope + " " + name;
      if (v != null && v.toString().matches("\\[-?\\d+,\\.\\.\\.\\]")) line += " min=" + v.toString().replaceAll("[\\[\\],.]", "");
      System.out.println(line);
    }
  }
}
