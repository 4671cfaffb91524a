package keystore

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// buildJKS writes a JKS v2 body (without the trailing digest) of trusted certs.
func buildJKS(certs ...[]byte) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	w(uint32(0xfeedfeed))
	w(uint32(2))
	w(uint32(len(certs)))
	for i, c := range certs {
		w(uint32(2))
		alias := []byte{byte('a' + i)}
		w(uint16(len(alias)))
		b.Write(alias)
		w(uint64(0))
		w(uint16(5))
		b.WriteString("X.509")
		w(uint32(len(c)))
		b.Write(c)
	}
	return b.Bytes()
}

func TestWalkJKS(t *testing.T) {
	es, err := walkJKS(buildJKS([]byte("cert-one"), []byte("cert-two")))
	if err != nil || len(es) != 2 || !es[1].Trusted || string(es[1].Certs[0]) != "cert-two" || es[0].Alias != "a" {
		t.Fatalf("walkJKS = %+v, %v", es, err)
	}
	for name, data := range map[string][]byte{
		"empty":     nil,
		"not jks":   []byte("PK\x03\x04 not a keystore"),
		"truncated": buildJKS([]byte("cert-one"))[:30],
		// A private key entry announcing 2^32-1 chain certificates in a
		// tiny file: must fail, not allocate.
		"huge chain": append(buildJKS()[:8], []byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}...),
		"huge count": append(buildJKS()[:8], 0xff, 0xff, 0xff, 0xff),
	} {
		if _, err := walkJKS(data); err == nil {
			t.Errorf("%s: walkJKS succeeded", name)
		}
	}
}

func FuzzWalkJKS(f *testing.F) {
	f.Add(buildJKS([]byte("x")))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := walkJKS(data)
		if err != nil {
			return
		}
		total := 0
		for _, e := range es {
			for _, c := range e.Certs {
				total += len(c)
			}
		}
		if total > len(data) {
			t.Fatalf("certificates of %d bytes from %d bytes of data", total, len(data))
		}
	})
}
