package main

import (
	"fmt"
	"os"

	"github.com/zkmigrate/zkmigrate/internal/jsonfile"
	"github.com/zkmigrate/zkmigrate/internal/plan"
)

// savePlan writes a plan file: compact JSON, zstd-compressed, atomically
// (`zstd -dc FILE` shows it; -o json prints the same plan indented). It is
// encoded one change at a time, never held whole in memory.
func savePlan(path string, p *plan.Plan) error {
	return jsonfile.Write(path, 0o600, p)
}

// loadPlan reads a plan file written by savePlan, or by an older version as
// plain JSON, one change at a time.
func loadPlan(path string) (*plan.Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := jsonfile.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a plan file: %v", path, err)
	}
	defer r.Close()
	var p plan.Plan
	if err := jsonfile.Decode(r, &p); err != nil {
		return nil, fmt.Errorf("%s: not a plan file: %v", path, err)
	}
	if p.Format != plan.FormatVersion {
		return nil, fmt.Errorf("%s: plan format %d not supported (this tool writes %d)", path, p.Format, plan.FormatVersion)
	}
	return &p, nil
}
