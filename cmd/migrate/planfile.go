package main

import (
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/planfile"
)

// savePlan seals and writes a plan file: compact JSON, zstd-compressed,
// atomically (`zstd -dc FILE` shows it; -o json prints the same plan
// indented), with the digest apply checks (docs/plan-file.md).
func savePlan(path string, p *plan.Plan) error { return planfile.Write(path, p) }

// loadPlan reads and checks a plan file (format version, digest, cluster
// ids), naming the file and field in any error.
func loadPlan(path string) (*plan.Plan, error) { return planfile.Read(path) }
