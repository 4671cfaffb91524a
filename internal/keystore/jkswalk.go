package keystore

import (
	"errors"
	"fmt"
)

// jksEntry is one JKS entry.
type jksEntry struct {
	Alias   string
	Trusted bool     // a trusted-certificate entry (tag 2); else a private key entry (tag 1)
	Certs   [][]byte // DER: the trusted certificate, or the private key's chain
}

// walkJKS reads a JKS file's entries without checking its keyed SHA-1
// digest (as Java's KeyStore.load does with a null password): magic,
// version, entry count, then entries. Every length is checked against the
// data, so a corrupt or hostile file is an error, never a huge allocation.
func walkJKS(data []byte) ([]jksEntry, error) {
	r := &jksReader{b: data}
	if r.u32() != 0xfeedfeed {
		return nil, errors.New("not a JKS keystore")
	}
	version := r.u32()
	if r.err == nil && version != 1 && version != 2 {
		return nil, fmt.Errorf("unsupported JKS version %d", version)
	}
	n := r.u32()
	var out []jksEntry
	cert := func() []byte {
		if version == 2 {
			r.utf() // certificate type, "X.509"
		}
		return r.bytes(int(r.u32()))
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		tag := r.u32()
		e := jksEntry{Alias: r.utf()}
		r.bytes(8) // creation time
		switch tag {
		case 1:
			r.bytes(int(r.u32())) // the encrypted key
			chain := r.u32()
			for j := uint32(0); j < chain && r.err == nil; j++ {
				e.Certs = append(e.Certs, cert())
			}
		case 2:
			e.Trusted = true
			e.Certs = [][]byte{cert()}
		default:
			if r.err == nil {
				return nil, fmt.Errorf("entry %q: unknown JKS entry type %d", e.Alias, tag)
			}
		}
		out = append(out, e)
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

type jksReader struct {
	b   []byte
	err error
}

func (r *jksReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errors.New("truncated JKS file")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *jksReader) u32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func (r *jksReader) utf() string {
	b := r.bytes(2)
	if b == nil {
		return ""
	}
	return string(r.bytes(int(b[0])<<8 | int(b[1])))
}
