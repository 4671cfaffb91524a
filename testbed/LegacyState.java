// LegacyState writes a rich legacy state onto the running Kafka 3.9 test cluster
// through Kafka's own AdminClient, so every znode is written by Kafka itself.
// It is run by testbed/testbed.sh with the Java source launcher:
//
//   java -cp '.testbed/lib39/*' testbed/LegacyState.java create BOOTSTRAP CLIENT_PROPS CREDENTIALS_JSON
//   java -cp '.testbed/lib39/*' testbed/LegacyState.java broker3 BOOTSTRAP CLIENT_PROPS -
//   java -cp '.testbed/lib39/*' testbed/LegacyState.java delete-pending BOOTSTRAP CLIENT_PROPS ZK
//
// "create" runs with brokers 1 and 2 and creates every topic with an explicit
// replica assignment (order included: it decides the preferred leaders), some
// pinned to one broker, and adds partitions to two of them afterwards, again
// with explicit replicas. "broker3" runs once broker 3 has joined and creates
// topic "doomed" on it. "delete-pending" runs after broker 3 is stopped for
// good, so the deletion of "doomed" stays pending in /admin/delete_topics.
// Everything is deterministic except what Kafka generates (topic ids, cluster
// id, salts, the delegation token id, timestamps).
//
// Every password below is a test value.

import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.DeleteTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.zookeeper.ZooKeeper;

public class LegacyState {

    /** A SCRAM user with a known password, recorded in the credentials file. */
    record Cred(String user, ScramMechanism mechanism, String password, int iterations) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: LegacyState create BOOTSTRAP CLIENT_PROPS CREDENTIALS_JSON");
            System.err.println("       LegacyState broker3 BOOTSTRAP CLIENT_PROPS -");
            System.err.println("       LegacyState delete-pending BOOTSTRAP CLIENT_PROPS ZK_CONNECT");
            System.exit(2);
        }
        Properties props = new Properties();
        try (InputStream in = new FileInputStream(args[2])) {
            props.load(in);
        }
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        try (Admin admin = Admin.create(props)) {
            switch (args[0]) {
                case "create" -> create(admin, Path.of(args[3]));
                case "broker3" -> broker3(admin);
                case "delete-pending" -> deletePending(admin, args[3]);
                default -> {
                    System.err.println("LegacyState: unknown mode " + args[0]);
                    System.exit(2);
                }
            }
        }
    }

    static void log(String msg) {
        System.out.println("legacy: " + msg);
    }

    /** Waits until the live brokers are exactly ids (or, with atLeast, include them) and a controller is elected. */
    static void waitForBrokers(Admin admin, boolean atLeast, Integer... ids) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        java.util.Set<Integer> want = new java.util.TreeSet<>(List.of(ids));
        while (true) {
            DescribeClusterResult r = admin.describeCluster();
            java.util.Set<Integer> live = new java.util.TreeSet<>();
            for (Node n : r.nodes().get()) {
                live.add(n.id());
            }
            Node controller = r.controller().get();
            boolean ok = atLeast ? live.containsAll(want) : live.equals(want);
            if (ok && controller != null && controller.id() >= 0) {
                log("cluster has brokers " + live + ", controller " + controller.id());
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster did not reach brokers " + want + " (has " + live + ")");
            }
            Thread.sleep(300);
        }
    }

    static void create(Admin admin, Path credentialsFile) throws Exception {
        waitForBrokers(admin, true, 1, 2);
        createTopics(admin);
        createAcls(admin);
        alterQuotas(admin);
        List<Cred> creds = createScramUsers(admin);
        alterBrokerConfigs(admin);
        createDelegationToken(admin);
        writeCredentials(credentialsFile, creds);
    }

    static void broker3(Admin admin) throws Exception {
        waitForBrokers(admin, false, 1, 2, 3);
        admin.createTopics(List.of(new NewTopic("doomed", assign(List.of(3), List.of(3))))).all().get();
        log("created topic doomed with its replicas on broker 3");
        // Broker 3 goes away afterwards: a per-broker config for a broker that is gone.
        set(admin, "3", "log.cleaner.threads", "1");
        log("set a dynamic config on broker 3");
    }

    // ------------------------------------------------------------ topics

    static Map<String, String> cfg(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @SafeVarargs
    static Map<Integer, List<Integer>> assign(List<Integer>... replicas) {
        Map<Integer, List<Integer>> m = new LinkedHashMap<>();
        for (int p = 0; p < replicas.length; p++) {
            m.put(p, replicas[p]);
        }
        return m;
    }

    static void createTopics(Admin admin) throws Exception {
        final List<Integer> B1 = List.of(1), B2 = List.of(2), B12 = List.of(1, 2), B21 = List.of(2, 1);
        List<NewTopic> topics = List.of(
            new NewTopic("orders", assign(B12, B21, B12))
                .configs(cfg("retention.ms", "604800000", "cleanup.policy", "delete", "min.insync.replicas", "1")),
            new NewTopic("customer-profiles", assign(B21, B12))
                .configs(cfg("cleanup.policy", "compact", "min.cleanable.dirty.ratio", "0.1", "segment.ms", "3600000")),
            // Keys removed in Kafka 4: still accepted (and ignored) by 3.9.
            new NewTopic("legacy-format", assign(B2))
                .configs(cfg("message.format.version", "2.8", "message.downconversion.enable", "false")),
            // segment.bytes below 1 MiB: valid in 3.9, refused by 4.1+.
            new NewTopic("tiny-segments", assign(B21)).configs(cfg("segment.bytes", "524288")),
            // Pinned to one broker each.
            new NewTopic("payments", assign(B1, B1, B1))
                .configs(cfg("retention.bytes", "1073741824", "max.message.bytes", "2097152")),
            new NewTopic("metrics.events", assign(B2, B2, B2, B2)),
            new NewTopic("_schemas", assign(B12)).configs(cfg("cleanup.policy", "compact")),
            new NewTopic("etl-raw", assign(B21, B12)),
            // A LIST value with two elements.
            new NewTopic("audit-log", assign(B12, B21)).configs(cfg("cleanup.policy", "compact,delete")),
            new NewTopic("replicated", assign(B12, B21)).configs(cfg("min.insync.replicas", "1")));
        admin.createTopics(topics).all().get();
        log("created " + topics.size() + " topics with explicit replica assignments");
        // Partitions added later, with explicit replicas (in ZooKeeper the new
        // partitions join the topic's assignment znode).
        admin.createPartitions(Map.of(
            "orders", NewPartitions.increaseTo(5, List.of(B21, B12)),
            "metrics.events", NewPartitions.increaseTo(6, List.of(B2, B2)))).all().get();
        log("added partitions: orders 3 -> 5, metrics.events 4 -> 6");
    }

    // ------------------------------------------------------------ ACLs

    static AclBinding acl(ResourceType type, String name, PatternType pattern, String principal, String host,
                          AclOperation op, AclPermissionType perm) {
        return new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry(principal, host, op, perm));
    }

    static void createAcls(Admin admin) throws Exception {
        final PatternType LIT = PatternType.LITERAL, PRE = PatternType.PREFIXED;
        final AclPermissionType ALLOW = AclPermissionType.ALLOW, DENY = AclPermissionType.DENY;
        final ResourceType TOPIC = ResourceType.TOPIC, GROUP = ResourceType.GROUP, CLUSTER = ResourceType.CLUSTER,
            TXN = ResourceType.TRANSACTIONAL_ID;
        List<AclBinding> acls = List.of(
            // Topic, literal
            acl(TOPIC, "orders", LIT, "User:alice", "*", AclOperation.READ, ALLOW),
            acl(TOPIC, "orders", LIT, "User:alice", "*", AclOperation.WRITE, ALLOW),
            acl(TOPIC, "orders", LIT, "User:alice", "*", AclOperation.DESCRIBE, ALLOW),
            acl(TOPIC, "orders", LIT, "User:User With Space", "*", AclOperation.READ, ALLOW),
            acl(TOPIC, "orders", LIT, "User:carol", "10.0.0.7", AclOperation.READ, ALLOW),
            // a hostname never matches (the authorizer compares IP strings)
            acl(TOPIC, "orders", LIT, "User:carol", "db.example.com", AclOperation.READ, ALLOW),
            acl(TOPIC, "payments", LIT, "User:mallory", "*", AclOperation.READ, DENY),
            acl(TOPIC, "payments", LIT, "User:*", "10.0.0.99", AclOperation.WRITE, DENY),
            acl(TOPIC, "*", LIT, "User:auditor", "*", AclOperation.DESCRIBE, ALLOW),
            acl(TOPIC, "*", LIT, "User:auditor", "*", AclOperation.DESCRIBE_CONFIGS, ALLOW),
            // Topic, prefixed
            acl(TOPIC, "metrics.", PRE, "User:bob", "*", AclOperation.READ, ALLOW),
            acl(TOPIC, "metrics.", PRE, "User:bob", "*", AclOperation.DESCRIBE, ALLOW),
            acl(TOPIC, "metrics.", PRE, "User:mallory", "*", AclOperation.ALL, DENY),
            // Group
            acl(GROUP, "billing", LIT, "User:alice", "*", AclOperation.READ, ALLOW),
            acl(GROUP, "billing", LIT, "User:mallory", "*", AclOperation.READ, DENY),
            // an odd pair: Write is not a Group operation (CreateAcls does not check)
            acl(GROUP, "billing", LIT, "User:alice", "*", AclOperation.WRITE, ALLOW),
            acl(GROUP, "team-", PRE, "User:bob", "*", AclOperation.READ, ALLOW),
            acl(GROUP, "*", LIT, "User:auditor", "*", AclOperation.DESCRIBE, ALLOW),
            // Cluster (Cluster:Create is what KIP-277 lets narrow to Topic:Create)
            acl(CLUSTER, "kafka-cluster", LIT, "User:alice", "*", AclOperation.CREATE, ALLOW),
            acl(CLUSTER, "kafka-cluster", LIT, "User:alice", "*", AclOperation.IDEMPOTENT_WRITE, ALLOW),
            acl(CLUSTER, "kafka-cluster", LIT, "User:svc-admin", "*", AclOperation.ALTER, ALLOW),
            acl(CLUSTER, "kafka-cluster", LIT, "User:CN=foo,OU=bar", "*", AclOperation.DESCRIBE_CONFIGS, ALLOW),
            acl(CLUSTER, "kafka-cluster", LIT, "User:mallory", "*", AclOperation.ALTER_CONFIGS, DENY),
            // TransactionalId
            acl(TXN, "tx-orders", LIT, "User:alice", "*", AclOperation.WRITE, ALLOW),
            acl(TXN, "tx-orders", LIT, "User:alice", "*", AclOperation.DESCRIBE, ALLOW),
            acl(TXN, "tx-orders", LIT, "User:mallory", "*", AclOperation.WRITE, DENY),
            acl(TXN, "tx-", PRE, "User:bob", "*", AclOperation.DESCRIBE, ALLOW),
            // User (KIP-373: who may create/describe tokens for whom) and DelegationToken
            acl(ResourceType.USER, "User:alice", LIT, "User:bob", "*", AclOperation.CREATE_TOKENS, ALLOW),
            acl(ResourceType.USER, "User:alice", LIT, "User:bob", "*", AclOperation.DESCRIBE_TOKENS, ALLOW),
            acl(ResourceType.DELEGATION_TOKEN, "reporting-token", LIT, "User:alice", "*", AclOperation.DESCRIBE, ALLOW));
        admin.createAcls(acls).all().get();
        log("created " + acls.size() + " ACLs");
    }

    // ------------------------------------------------------------ quotas

    /** An entity from alternating type/name pairs; a null name is the default entity. */
    static ClientQuotaEntity entity(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return new ClientQuotaEntity(m);
    }

    static ClientQuotaAlteration quota(ClientQuotaEntity e, Object... kv) {
        List<ClientQuotaAlteration.Op> ops = new ArrayList<>();
        for (int i = 0; i < kv.length; i += 2) {
            ops.add(new ClientQuotaAlteration.Op((String) kv[i], ((Number) kv[i + 1]).doubleValue()));
        }
        return new ClientQuotaAlteration(e, ops);
    }

    static void alterQuotas(Admin admin) throws Exception {
        final String USER = ClientQuotaEntity.USER, CLIENT = ClientQuotaEntity.CLIENT_ID, IP = ClientQuotaEntity.IP;
        // No IPv6 entity: 3.9.1's ZkAdminManager validates the IP after sanitizing
        // it, so "2001:db8::1" is refused as "2001%3Adb8%3A%3A1 is not a valid IP".
        List<ClientQuotaAlteration> q = List.of(
            quota(entity(USER, "alice"), "producer_byte_rate", 1048576, "consumer_byte_rate", 2097152),
            quota(entity(USER, "CN=foo,OU=bar"), "request_percentage", 25),
            quota(entity(USER, "svc~deploy"), "controller_mutation_rate", 10),
            quota(entity(CLIENT, "reporting-app"), "consumer_byte_rate", 4194304, "request_percentage", 50),
            quota(entity(USER, "alice", CLIENT, "alice-cli"), "producer_byte_rate", 524288),
            quota(entity(USER, "alice", CLIENT, null), "consumer_byte_rate", 1048576),
            quota(entity(USER, null), "producer_byte_rate", 10485760, "consumer_byte_rate", 10485760),
            quota(entity(CLIENT, null), "request_percentage", 200),
            quota(entity(USER, null, CLIENT, "batch-loader"), "producer_byte_rate", 262144),
            quota(entity(USER, null, CLIENT, null), "request_percentage", 100),
            quota(entity(IP, "10.1.2.3"), "connection_creation_rate", 10),
            quota(entity(IP, null), "connection_creation_rate", 100));
        admin.alterClientQuotas(q).all().get();
        log("set " + q.size() + " quota entities");
    }

    // ------------------------------------------------------------ SCRAM

    static List<Cred> createScramUsers(Admin admin) throws Exception {
        final ScramMechanism S256 = ScramMechanism.SCRAM_SHA_256, S512 = ScramMechanism.SCRAM_SHA_512;
        // One alteration per user per request, so alice's second mechanism goes in a second request.
        List<Cred> first = List.of(
            new Cred("alice", S256, "alice-secret", 8192),
            new Cred("CN=foo,OU=bar", S256, "foo-secret", 4096),
            new Cred("User With Space", S512, "space-secret", 4096),
            new Cred("carol", S256, "carol-unrecorded-secret", 4096));
        List<Cred> second = List.of(new Cred("alice", S512, "alice-secret", 8192));
        for (List<Cred> batch : List.of(first, second)) {
            List<UserScramCredentialAlteration> alts = new ArrayList<>();
            for (Cred c : batch) {
                alts.add(new UserScramCredentialUpsertion(c.user(), new ScramCredentialInfo(c.mechanism(), c.iterations()),
                    c.password()));
            }
            admin.alterUserScramCredentials(alts).all().get();
        }
        log("created SCRAM credentials for alice (256, 512), CN=foo,OU=bar, User With Space, carol");
        // The credentials file: every known password. carol's is left out on
        // purpose (a user whose password the operator does not have). admin
        // was created before the broker started, bob by kafka-configs right after this.
        List<Cred> known = new ArrayList<>();
        known.add(new Cred("admin", S256, "admin-secret", 8192));
        known.addAll(first.subList(0, 3));
        known.addAll(second);
        known.add(new Cred("bob", S256, "bob-secret", 8192));
        return known;
    }

    static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    static void writeCredentials(Path file, List<Cred> creds) throws Exception {
        StringBuilder b = new StringBuilder("[\n");
        for (int i = 0; i < creds.size(); i++) {
            Cred c = creds.get(i);
            b.append("  {\"user\":").append(jsonString(c.user()))
                .append(",\"mechanism\":").append(jsonString(c.mechanism().mechanismName()))
                .append(",\"password\":").append(jsonString(c.password()))
                .append(",\"iterations\":").append(c.iterations()).append('}')
                .append(i + 1 < creds.size() ? ",\n" : "\n");
        }
        b.append("]\n");
        Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
        log("wrote " + creds.size() + " known credentials to " + file);
    }

    // ------------------------------------------------------------ broker configs

    static void set(Admin admin, String broker, String... kv) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        for (int i = 0; i < kv.length; i += 2) {
            ops.add(new AlterConfigOp(new ConfigEntry(kv[i], kv[i + 1]), AlterConfigOp.OpType.SET));
        }
        ConfigResource r = new ConfigResource(ConfigResource.Type.BROKER, broker);
        admin.incrementalAlterConfigs(Map.of(r, ops)).all().get();
    }

    static void alterBrokerConfigs(Admin admin) throws Exception {
        // Cluster-wide defaults (the "<default>" broker entity), one of each
        // Kafka type: LONG, INT, DOUBLE (Kafka 4 prints 10485760 as 1.048576E7),
        // BOOLEAN, LIST.
        set(admin, "", "log.retention.ms", "259200000", "max.connections.per.ip", "1000",
            "log.cleaner.io.max.bytes.per.second", "10485760", "unclean.leader.election.enable", "false",
            "log.cleanup.policy", "delete");
        // Broker 1: a PASSWORD-typed key (stored encrypted with password.encoder.secret).
        // An ssl.* listener key is accepted on a running SASL_PLAINTEXT listener;
        // a sasl.jaas.config one is refused for an existing listener.
        set(admin, "1", "listener.name.sasl_plaintext.ssl.key.password", "kp-secret-1");
        // Broker 1 and 2: non-secret per-broker settings (LONG, INT, DOUBLE).
        set(admin, "1", "leader.replication.throttled.rate", "10485760",
            "follower.replication.throttled.rate", "10485760", "log.cleaner.threads", "2");
        set(admin, "2", "log.cleaner.threads", "1", "log.cleaner.backoff.ms", "20000",
            "log.cleaner.io.buffer.load.factor", "0.8");
        log("set dynamic broker configs: <default>, 1 (incl. an encrypted password), 2");
    }

    static void createDelegationToken(Admin admin) throws Exception {
        var token = admin.createDelegationToken(new CreateDelegationTokenOptions()
            .renewers(List.of(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice")))).delegationToken().get();
        log("created a delegation token for " + token.tokenInfo().owner() + " (renewer User:alice)");
    }

    // ------------------------------------------------------------ pending deletion

    static void deletePending(Admin admin, String zkConnect) throws Exception {
        waitForBrokers(admin, false, 1, 2);
        // In ZooKeeper mode DeleteTopics answers once the brokers' metadata
        // caches drop the topic (the controller marks it "being deleted"), which
        // does not mean the replicas are gone: with broker 3 offline the
        // controller keeps the topic in /admin/delete_topics, ineligible for
        // deletion until broker 3 returns (it never does).
        try {
            admin.deleteTopics(List.of("doomed"), new DeleteTopicsOptions().timeoutMs(10000)).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TimeoutException)) {
                throw e;
            }
        }
        // Read-only check in ZooKeeper that Kafka left the deletion pending.
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(zkConnect, 10000, ev -> {
            if (ev.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not connect to ZooKeeper " + zkConnect);
            }
            Thread.sleep(2000);
            if (zk.exists("/admin/delete_topics/doomed", false) == null || zk.exists("/brokers/topics/doomed", false) == null) {
                throw new IllegalStateException("expected /admin/delete_topics/doomed and /brokers/topics/doomed to remain");
            }
        } finally {
            zk.close();
        }
        log("topic doomed: deletion pending in /admin/delete_topics (replicas on offline broker 3)");
    }
}
