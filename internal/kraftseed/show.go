package kraftseed

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zkmigrate/zkmigrate/internal/infile"
	"github.com/zkmigrate/zkmigrate/internal/kraftcheckpoint"
)

// Listing is a checkpoint's records by kind, its feature levels, and the
// SCRAM users and mechanisms (never key bytes), tokens and topics.
type Listing struct {
	File     string    `json:"file"`
	Batches  int       `json:"batches"`
	Records  int       `json:"records"`
	Kinds    []Kind    `json:"kinds"`
	Features []Feature `json:"features"`
	Scram    []User    `json:"scram_users"`
	Tokens   []string  `json:"delegation_tokens,omitempty"`
	Topics   []string  `json:"topics,omitempty"`
}

// Kind is a record type and how many records of it a checkpoint holds.
type Kind struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// Feature is a feature level a checkpoint sets.
type Feature struct {
	Name  string `json:"name"`
	Level int16  `json:"level"`
}

// Show lists the checkpoint at path (a metadata directory's, when path is a
// directory).
func Show(path string) (*Listing, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, kraftcheckpoint.FileName)
	}
	data, err := infile.ReadAll(path, infile.Checkpoint)
	if err == nil {
		err = infile.ExpectBytes(path, infile.Checkpoint, data)
	}
	if err != nil {
		return nil, err
	}
	cp, err := kraftcheckpoint.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, strings.TrimPrefix(err.Error(), "kraftcheckpoint: "))
	}
	out := &Listing{File: path, Batches: len(cp.Batches), Kinds: []Kind{}, Features: []Feature{}, Scram: []User{}}
	idx := map[string]int{}
	for _, r := range cp.Records() {
		n := kraftcheckpoint.RecordTypeName(r.Type)
		if _, ok := idx[n]; !ok {
			idx[n] = len(out.Kinds)
			out.Kinds = append(out.Kinds, Kind{Type: n})
		}
		out.Kinds[idx[n]].Count++
		out.Records++
	}
	for _, f := range cp.Features() {
		out.Features = append(out.Features, Feature{f.Name, f.Level})
	}
	for _, c := range cp.Scram() {
		out.Scram = append(out.Scram, User{User: c.Name, Mechanism: c.Mechanism.String(), Iterations: c.Iterations})
	}
	for _, tk := range cp.Tokens() {
		out.Tokens = append(out.Tokens, tk.TokenID+" (owner "+tk.Owner+")")
	}
	for _, tp := range cp.Topics() {
		out.Topics = append(out.Topics, tp.Name+" (id "+base64.RawURLEncoding.EncodeToString(tp.ID[:])+")")
	}
	return out, nil
}
