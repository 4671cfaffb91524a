// Package zkconn connects to a ZooKeeper ensemble for reading Kafka
// metadata: a Kafka-style connect string with an optional chroot
// ("host:port[,host:port][/chroot]"), digest auth (--zk-auth), TLS from a
// Kafka-format ZooKeeper TLS config file (zookeeper.ssl.* keys; PEM, PKCS12
// and JKS stores), and bounded retries when the connection or session is
// lost. Conn implements zkread.Source and exposes no write operation.
package zkconn
