// AuthzOracle: Kafka's own authorizer classes decide the cases the Go
// differential test (internal/authz/oracle_test.go) sends, so that every
// decision of the Go ports can be held to Kafka's.
//
// Run with the Java 17 source launcher on one Kafka line's jars:
//   java -cp "$LIB39/*" AuthzOracle.java zk      (kafka.security.authorizer.AclAuthorizer, 3.9.x)
//   java -cp "$LIB41/*" AuthzOracle.java kraft   (org.apache.kafka.metadata.authorizer.StandardAuthorizer)
// AclAuthorizer is configured against a ZooKeeper server in this process (it
// needs zookeeper.connect) once per distinct configuration, and its ACLs are
// set with its public updateCache hook, as Kafka's AuthorizerBenchmark does;
// StandardAuthorizer is made per block: configure, withPluginMetrics (4.1),
// loadSnapshot, completeInitialLoad. Classes that exist in one line only are
// reached by reflection, so this one file compiles against either.
//
// Input, one command per line, fields separated by single spaces, each field
// percent-encoded (UTF-8):
//   config SU_SET SU AE_SET AE   begin a block: super.users (set 0/1, value) and
//                                allow.everyone.if.no.acl.found
//   acl TYPE NAME PATTERN PRINCIPAL HOST OPERATION PERMISSION   (Java enum names)
//   q PRINCIPAL IP OPERATION TYPE NAME   authorize, one LITERAL action
//   t PRINCIPAL IP OPERATION TYPE        authorizeByResourceType
//   end                          decide the block's queries
//   host IP                      InetAddress.getByName(IP).getHostAddress()
//   parse KIND NAME              SecurityUtils.operation/resourceType/permissionType (KIND op, type, perm)
// Output lines start with "R " (anything else on stdout is a library's):
//   per block: "R CONFIG OK|THROWS X", "R LOAD OK|THROWS X", then per query
//   "R ALLOWED|DENIED|THROWS X|HANGS" (none when config or load threw), "R END";
//   per host: "R HOST <address>|THROWS X"; per parse: "R PARSE <ENUM_NAME>".
// A query whose thread has spent 200 ms of CPU time inside
// StandardAuthorizerData's walk is HANGS (the thread is then stopped); one
// that has not returned after 60 s is HANGS too.

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.SecurityUtils;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;
import org.apache.kafka.server.authorizer.Authorizer;

public class AuthzOracle {
    static PrintStream out;

    public static void main(String[] args) throws Exception {
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // libraries' chatter goes to stderr
        boolean zk = args.length > 0 && args[0].equals("zk");
        Backend backend = zk ? new ZkBackend() : new KRaftBackend();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Block block = null;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] f = line.split(" ", -1);
            for (int i = 1; i < f.length; i++) f[i] = URLDecoder.decode(f[i], StandardCharsets.UTF_8);
            switch (f[0]) {
                case "config":
                    block = new Block();
                    block.config = new HashMap<>();
                    if (f[1].equals("1")) block.config.put("super.users", f[2]);
                    if (f[3].equals("1")) block.config.put("allow.everyone.if.no.acl.found", f[4]);
                    break;
                case "acl":
                    block.acls.add(f);
                    break;
                case "q":
                case "t":
                    block.queries.add(f);
                    break;
                case "end":
                    backend.run(block);
                    out.println("R END");
                    out.flush();
                    block = null;
                    break;
                case "host":
                    try {
                        out.println("R HOST " + InetAddress.getByName(f[1]).getHostAddress());
                    } catch (Exception e) {
                        out.println("R HOST THROWS " + e.getClass().getSimpleName());
                    }
                    out.flush();
                    break;
                case "parse":
                    String name = f[1].equals("op") ? SecurityUtils.operation(f[2]).name()
                        : f[1].equals("type") ? SecurityUtils.resourceType(f[2]).name()
                        : SecurityUtils.permissionType(f[2]).name();
                    out.println("R PARSE " + name);
                    out.flush();
                    break;
                default:
                    throw new IllegalArgumentException("unknown command " + f[0]);
            }
        }
        backend.close();
        out.flush();
        System.exit(0);
    }

    static class Block {
        Map<String, Object> config;
        List<String[]> acls = new ArrayList<>();
        List<String[]> queries = new ArrayList<>();
    }

    static class Ctx implements AuthorizableRequestContext {
        final KafkaPrincipal principal;
        final InetAddress address;

        Ctx(String principal, String ip) throws Exception {
            int colon = principal.indexOf(':');
            this.principal = new KafkaPrincipal(principal.substring(0, colon), principal.substring(colon + 1));
            this.address = InetAddress.getByName(ip);
        }

        public String listenerName() { return "SASL_PLAINTEXT"; }
        public SecurityProtocol securityProtocol() { return SecurityProtocol.SASL_PLAINTEXT; }
        public KafkaPrincipal principal() { return principal; }
        public InetAddress clientAddress() { return address; }
        public int requestType() { return 0; } // a valid API key: StandardAuthorizer's audit line names it
        public int requestVersion() { return 0; }
        public String clientId() { return "authz-oracle"; }
        public int correlationId() { return 1; }
    }

    abstract static class Backend {
        ExecutorService exec;
        Thread worker;

        abstract void run(Block b) throws Exception;

        void close() throws Exception {}

        void queries(Authorizer a, Block b) throws Exception {
            for (String[] q : b.queries) {
                Ctx ctx = new Ctx(q[1], q[2]);
                AclOperation op = AclOperation.valueOf(q[3]);
                ResourceType type = ResourceType.valueOf(q[4]);
                Callable<AuthorizationResult> call = q[0].equals("q")
                    ? () -> a.authorize(ctx, List.of(new Action(op, new ResourcePattern(type, q[5], PatternType.LITERAL), 1, true, true))).get(0)
                    : () -> a.authorizeByResourceType(ctx, op, type);
                out.println("R " + decide(call));
            }
        }

        String decide(Callable<AuthorizationResult> call) throws Exception {
            if (exec == null) {
                exec = Executors.newSingleThreadExecutor(r -> {
                    worker = new Thread(r, "oracle-worker");
                    worker.setDaemon(true);
                    return worker;
                });
                exec.submit(() -> null).get(); // the worker exists
            }
            long cpu0 = threads.getThreadCpuTime(worker.getId());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Future<AuthorizationResult> f = exec.submit(call);
            try {
                while (true) {
                    try {
                        return f.get(50, TimeUnit.MILLISECONDS).name();
                    } catch (TimeoutException e) {
                        // A decision takes microseconds of CPU. A call that has
                        // spent 200 ms of its thread's CPU time inside the walk
                        // loops (CPU time, not wall time: a busy machine only
                        // delays it).
                        long spent = threads.getThreadCpuTime(worker.getId()) - cpu0;
                        if ((spent > 200_000_000L && inWalk(worker)) || System.nanoTime() > deadline) {
                            stopWorker();
                            return "HANGS";
                        }
                    }
                }
            } catch (ExecutionException e) {
                return "THROWS " + e.getCause().getClass().getSimpleName();
            }
        }

        static final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();

        static boolean inWalk(Thread t) {
            for (StackTraceElement s : t.getStackTrace()) {
                if (s.getClassName().endsWith("StandardAuthorizerData") && s.getMethodName().equals("checkSection")) return true;
            }
            return false;
        }

        @SuppressWarnings("removal")
        void stopWorker() {
            exec.shutdownNow();
            try {
                worker.stop(); // a spinning walk holds no lock
            } catch (UnsupportedOperationException e) {
                // Java 20+: the daemon thread spins until exit
            }
            exec = null;
        }
    }

    static class KRaftBackend extends Backend {
        void run(Block b) throws Exception {
            StandardAuthorizer a = new StandardAuthorizer();
            try {
                a.configure(b.config);
                out.println("R CONFIG OK");
            } catch (Exception e) {
                out.println("R CONFIG THROWS " + e.getClass().getSimpleName());
                return;
            }
            withPluginMetrics(a);
            Map<Uuid, StandardAcl> acls = new LinkedHashMap<>();
            try {
                for (String[] f : b.acls) {
                    acls.put(Uuid.randomUuid(), new StandardAcl(ResourceType.valueOf(f[1]), f[2], PatternType.valueOf(f[3]), f[4], f[5],
                        AclOperation.valueOf(f[6]), AclPermissionType.valueOf(f[7])));
                }
                a.loadSnapshot(acls);
                a.completeInitialLoad();
                out.println("R LOAD OK");
            } catch (Exception e) {
                out.println("R LOAD THROWS " + e.getClass().getSimpleName());
                return;
            }
            queries(a, b);
        }

        // 4.1 (KIP-877): authorize throws NullPointerException without plugin metrics.
        static void withPluginMetrics(StandardAuthorizer a) throws Exception {
            Class<?> pm;
            try {
                pm = Class.forName("org.apache.kafka.common.metrics.PluginMetrics");
            } catch (ClassNotFoundException e) {
                return; // 3.x
            }
            Object impl = Class.forName("org.apache.kafka.common.metrics.internals.PluginMetricsImpl")
                .getConstructor(org.apache.kafka.common.metrics.Metrics.class, Map.class)
                .newInstance(new org.apache.kafka.common.metrics.Metrics(), Map.of());
            StandardAuthorizer.class.getMethod("withPluginMetrics", pm).invoke(a, impl);
        }
    }

    static class ZkBackend extends Backend {
        Object zkServer, cnxnFactory;
        int port;
        File dir;
        final Map<Map<String, Object>, Authorizer> byConfig = new HashMap<>();
        final Map<Authorizer, Set<ResourcePattern>> cached = new HashMap<>();
        Method updateCache;
        Constructor<?> versionedAcls, aclEntry;

        ZkBackend() throws Exception {
            System.setProperty("zookeeper.admin.enableServer", "false");
            dir = Files.createTempDirectory("authz-oracle-zk").toFile();
            Class<?> zks = Class.forName("org.apache.zookeeper.server.ZooKeeperServer");
            zkServer = zks.getConstructor(File.class, File.class, int.class).newInstance(dir, dir, 2000);
            Class<?> fc = Class.forName("org.apache.zookeeper.server.ServerCnxnFactory");
            cnxnFactory = fc.getMethod("createFactory", InetSocketAddress.class, int.class).invoke(null, new InetSocketAddress("127.0.0.1", 0), 100);
            fc.getMethod("startup", zks).invoke(cnxnFactory, zkServer);
            port = (Integer) fc.getMethod("getLocalPort").invoke(cnxnFactory);
            Class<?> aa = Class.forName("kafka.security.authorizer.AclAuthorizer");
            Class<?> va = Class.forName("kafka.security.authorizer.AclAuthorizer$VersionedAcls");
            updateCache = aa.getMethod("updateCache", ResourcePattern.class, va);
            versionedAcls = va.getConstructor(Class.forName("scala.collection.immutable.Set"), int.class);
            aclEntry = Class.forName("org.apache.kafka.security.authorizer.AclEntry").getConstructor(AccessControlEntry.class);
        }

        Authorizer authorizer(Map<String, Object> config) throws Exception {
            Authorizer a = byConfig.get(config);
            if (a == null) {
                Map<String, Object> c = new HashMap<>(config);
                c.put("zookeeper.connect", "127.0.0.1:" + port);
                a = (Authorizer) Class.forName("kafka.security.authorizer.AclAuthorizer").getConstructor().newInstance();
                a.configure(c);
                byConfig.put(config, a);
                cached.put(a, new HashSet<>());
            }
            return a;
        }

        Object scalaSet(Set<Object> s) throws Exception {
            Object mutable = Class.forName("scala.jdk.javaapi.CollectionConverters").getMethod("asScala", java.util.Set.class).invoke(null, s);
            return mutable.getClass().getMethod("toSet").invoke(mutable);
        }

        void run(Block b) throws Exception {
            Authorizer a;
            try {
                a = authorizer(b.config);
                out.println("R CONFIG OK");
            } catch (Exception e) {
                Throwable c = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                out.println("R CONFIG THROWS " + c.getClass().getSimpleName());
                return;
            }
            Set<ResourcePattern> previous = cached.get(a);
            for (ResourcePattern r : previous) updateCache.invoke(a, r, versionedAcls.newInstance(scalaSet(new HashSet<>()), -1));
            previous.clear();
            Map<ResourcePattern, Set<Object>> acls = new LinkedHashMap<>();
            try {
                for (String[] f : b.acls) {
                    ResourcePattern r = new ResourcePattern(ResourceType.valueOf(f[1]), f[2], PatternType.valueOf(f[3]));
                    Object entry = aclEntry.newInstance(new AccessControlEntry(f[4], f[5], AclOperation.valueOf(f[6]), AclPermissionType.valueOf(f[7])));
                    acls.computeIfAbsent(r, k -> new HashSet<>()).add(entry);
                }
            } catch (Exception e) {
                Throwable c = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                out.println("R LOAD THROWS " + c.getClass().getSimpleName());
                return;
            }
            for (Map.Entry<ResourcePattern, Set<Object>> e : acls.entrySet()) {
                updateCache.invoke(a, e.getKey(), versionedAcls.newInstance(scalaSet(e.getValue()), 1));
                previous.add(e.getKey());
            }
            out.println("R LOAD OK");
            queries(a, b);
        }

        void close() throws Exception {
            for (Authorizer a : byConfig.values()) a.close();
            Class.forName("org.apache.zookeeper.server.ServerCnxnFactory").getMethod("shutdown").invoke(cnxnFactory);
        }
    }
}
