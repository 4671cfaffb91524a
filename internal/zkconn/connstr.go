package zkconn

import (
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
)

// DefaultPort is ZooKeeper's client port, used when a host has none.
const DefaultPort = 2181

// ParseConnectString splits "host:port[,host:port][/chroot]" into host:port
// addresses and the chroot ("" for none), as Kafka's zookeeper.connect is
// read. A host without a port gets DefaultPort; IPv6 hosts are bracketed.
func ParseConnectString(s string) (hosts []string, chroot string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, "", fmt.Errorf("zkconn: empty connect string")
	}
	hostPart := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hostPart, chroot = s[:i], s[i:]
		if strings.ContainsAny(chroot, " \t") {
			return nil, "", fmt.Errorf("zkconn: connect string %q: bad chroot %q", s, chroot)
		}
		chroot = path.Clean(chroot)
		if chroot == "/" {
			chroot = ""
		}
	}
	for _, h := range strings.Split(hostPart, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, "", fmt.Errorf("zkconn: connect string %q: empty host", s)
		}
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			// No port: a bare host name or IPv6 address.
			host, port = strings.Trim(h, "[]"), strconv.Itoa(DefaultPort)
			if strings.ContainsAny(host, "[]") {
				return nil, "", fmt.Errorf("zkconn: connect string %q: bad host %q", s, h)
			}
		}
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return nil, "", fmt.Errorf("zkconn: connect string %q: bad port in %q", s, h)
		}
		if host == "" {
			return nil, "", fmt.Errorf("zkconn: connect string %q: empty host in %q", s, h)
		}
		hosts = append(hosts, net.JoinHostPort(host, port))
	}
	return hosts, chroot, nil
}
