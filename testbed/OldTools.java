// OldTools runs a list of Kafka command-line tools (kafka.admin.TopicCommand,
// ConfigCommand, AclCommand, DelegationTokenCommand) through their own main
// methods, one after another in one JVM, on an old Kafka release's classpath.
// testbed.sh "old" writes each old release's legacy state with it: the
// release's own tools, without a JVM start per call (one start costs seconds
// on the test bed's two cores).
//
//   javac -d CLASSES testbed/OldTools.java
//   java -cp "CLASSES:<lib>/*" OldTools SCRIPT
//
// SCRIPT has one call per line, the class and its arguments separated by
// tabs; empty lines and lines starting with # are skipped. One line is not a
// tool: "@create-path HOST:PORT /PATH" creates the znode PATH and its missing
// parents (empty, open ACL) with the release's ZooKeeper client, as
// zookeeper-shell's create would: the tools' --zookeeper needs the chroot to
// exist (and 0.11's ConfigCommand /config/changes), which otherwise only a
// broker's first start creates, and a broker needs the admin credential
// written before it starts.
// Another is the release's AdminClient (2.3+, KIP-339), for what no tool of
// the release sends: "@incremental-alter-configs BOOTSTRAP CLIENT_PROPS TYPE
// NAME OP KEY=VALUE" (TYPE a ConfigResource.Type such as TOPIC, OP an
// AlterConfigOp.OpType such as APPEND). It compiles
// against every release from 0.11 on: it names no Kafka class, and reaches
// org.apache.kafka.common.utils.Exit (0.11+), which every tool's exit goes
// through, by reflection.
//
// A call fails when its main throws, when it exits with a status other than
// 0, or when it prints "Error while executing" (0.11's ConfigCommand prints
// its errors and returns normally). The first failure stops the run with
// exit status 1. Passwords in the echoed command lines are redacted.

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

public class OldTools {

    /** Thrown by the exit procedure in place of System.exit. */
    static final class ToolExit extends RuntimeException {
        final int status;

        ToolExit(int status) {
            super("exit " + status, null, false, false);
            this.status = status;
        }
    }

    /** An output stream whose bytes also go to a buffer for the current call. */
    static final class Tee extends OutputStream {
        final OutputStream out;
        final ByteArrayOutputStream call = new ByteArrayOutputStream();

        Tee(OutputStream out) {
            this.out = out;
        }

        @Override
        public synchronized void write(int b) throws java.io.IOException {
            out.write(b);
            call.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
            out.write(b, off, len);
            call.write(b, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            out.flush();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: OldTools SCRIPT");
            System.exit(2);
        }
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        // Before any Scala class starts: Scala's Console keeps the System.out
        // it first sees, so the tee must be in place already.
        Tee out = new Tee(System.out), err = new Tee(System.err);
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        installExitProcedure();
        int n = 0;
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            n++;
            String[] parts = line.split("\t");
            String[] toolArgs = Arrays.copyOfRange(parts, 1, parts.length);
            System.out.println("$ " + parts[0] + " " + String.join(" ", toolArgs).replaceAll("(password=)[^],]*", "$1<redacted>"));
            out.call.reset();
            err.call.reset();
            int status = 0;
            Throwable thrown = null;
            try {
                if (parts[0].equals("@create-path")) {
                    createPath(toolArgs[0], toolArgs[1]);
                    continue;
                }
                if (parts[0].equals("@incremental-alter-configs")) {
                    incrementalAlterConfigs(toolArgs);
                    continue;
                }
                Class.forName(parts[0]).getMethod("main", String[].class).invoke(null, (Object) toolArgs);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof ToolExit x) {
                    status = x.status;
                } else {
                    thrown = e.getCause();
                }
            }
            String printed = out.call.toString(StandardCharsets.UTF_8) + err.call.toString(StandardCharsets.UTF_8);
            if (thrown != null || status != 0 || printed.contains("Error while executing")) {
                System.err.println("OldTools: call " + n + " (" + parts[0] + ") failed: "
                    + (thrown != null ? thrown : status != 0 ? "exit status " + status : "it printed an error"));
                if (thrown != null) {
                    thrown.printStackTrace();
                }
                System.exit(1);
            }
        }
        System.out.println("OldTools: " + n + " calls succeeded");
        System.exit(0);
    }

    /** Creates the persistent znode path and its missing parents (no data, open ACL) on server. */
    static void createPath(String server, String path) throws Exception {
        Class<?> zkClass = Class.forName("org.apache.zookeeper.ZooKeeper");
        Class<?> watcher = Class.forName("org.apache.zookeeper.Watcher");
        Object noop = Proxy.newProxyInstance(watcher.getClassLoader(), new Class<?>[] {watcher},
            (proxy, method, a) -> method.getName().equals("process") ? null : method.invoke(this0, a));
        Object zk = zkClass.getConstructor(String.class, int.class, watcher).newInstance(server, 10000, noop);
        try {
            Object acl = Class.forName("org.apache.zookeeper.ZooDefs$Ids").getField("OPEN_ACL_UNSAFE").get(null);
            Class<?> mode = Class.forName("org.apache.zookeeper.CreateMode");
            String at = "";
            for (String part : path.substring(1).split("/")) {
                at += "/" + part;
                if (zkClass.getMethod("exists", String.class, boolean.class).invoke(zk, at, false) == null) {
                    zkClass.getMethod("create", String.class, byte[].class, List.class, mode)
                        .invoke(zk, at, new byte[0], acl, mode.getField("PERSISTENT").get(null));
                }
            }
        } finally {
            zkClass.getMethod("close").invoke(zk);
        }
    }

    /** One IncrementalAlterConfigs request through the release's AdminClient, by reflection. */
    static void incrementalAlterConfigs(String[] a) throws Exception {
        java.util.Properties props = new java.util.Properties();
        try (java.io.InputStream in = Files.newInputStream(Path.of(a[1]))) {
            props.load(in);
        }
        props.put("bootstrap.servers", a[0]);
        Class<?> adminClass = Class.forName("org.apache.kafka.clients.admin.AdminClient");
        Object admin = adminClass.getMethod("create", java.util.Properties.class).invoke(null, props);
        try {
            Class<?> resType = Class.forName("org.apache.kafka.common.config.ConfigResource$Type");
            Class<?> resClass = Class.forName("org.apache.kafka.common.config.ConfigResource");
            Object res = resClass.getConstructor(resType, String.class).newInstance(enumValue(resType, a[2]), a[3]);
            Class<?> opType = Class.forName("org.apache.kafka.clients.admin.AlterConfigOp$OpType");
            Class<?> entryClass = Class.forName("org.apache.kafka.clients.admin.ConfigEntry");
            Class<?> opClass = Class.forName("org.apache.kafka.clients.admin.AlterConfigOp");
            int eq = a[5].indexOf('=');
            Object entry = entryClass.getConstructor(String.class, String.class).newInstance(a[5].substring(0, eq), a[5].substring(eq + 1));
            Object op = opClass.getConstructor(entryClass, opType).newInstance(entry, enumValue(opType, a[4]));
            Object result = adminClass.getMethod("incrementalAlterConfigs", java.util.Map.class)
                .invoke(admin, java.util.Map.of(res, List.of(op)));
            Object all = result.getClass().getMethod("all").invoke(result);
            ((java.util.concurrent.Future<?>) all).get(60, java.util.concurrent.TimeUnit.SECONDS);
            System.out.println("IncrementalAlterConfigs " + a[4] + " " + a[5] + " on " + a[2] + " " + a[3] + ": done");
        } finally {
            adminClass.getMethod("close").invoke(admin);
        }
    }

    static Object enumValue(Class<?> type, String name) throws Exception {
        return type.getMethod("valueOf", String.class).invoke(null, name);
    }

    /** Exit.setExitProcedure(procedure that throws ToolExit), by reflection. */
    static void installExitProcedure() throws Exception {
        Class<?> exit = Class.forName("org.apache.kafka.common.utils.Exit");
        Class<?> procedure = Class.forName("org.apache.kafka.common.utils.Exit$Procedure");
        InvocationHandler h = (proxy, method, a) -> {
            if (method.getName().equals("execute")) {
                throw new ToolExit((Integer) a[0]);
            }
            return method.invoke(this0, a);
        };
        Object p = Proxy.newProxyInstance(procedure.getClassLoader(), new Class<?>[] {procedure}, h);
        Method set = exit.getMethod("setExitProcedure", procedure);
        set.invoke(null, p);
    }

    static final Object this0 = new Object();
}
