package audit

import (
	"context"
	"testing"
)

// An access proof is recorded in the chain: export returns it, verify
// holds it, and an edited verdict breaks the chain at its row.
func TestAccessProofRecorded(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t)
	r, err := s.BeginRun(ctx, RunInfo{Command: "access diff", User: "ops", Host: "h", ToolVersion: "t"})
	if err != nil {
		t.Fatal(err)
	}
	p := AccessProof{What: "target", Verdict: "differences", Classes: 550, Differing: 134, Causes: 2, Accepted: 1, Digest: "sha256:abc"}
	if err := r.RecordAccessProof(ctx, p); err != nil {
		t.Fatal(err)
	}
	head, err := r.Finish(ctx, "differences", 3)
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.Export(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(x.AccessProofs) != 1 {
		t.Fatalf("exported proofs %+v", x.AccessProofs)
	}
	got := x.AccessProofs[0]
	got.At = p.At
	if got != p {
		t.Errorf("exported %+v, recorded %+v", got, p)
	}
	shown, err := s.AccessProofs(ctx, r.ID())
	if err != nil || len(shown) != 1 || shown[0].Digest != p.Digest || shown[0].Verdict != p.Verdict {
		t.Errorf("AccessProofs: %+v %v", shown, err)
	}
	if none, err := s.AccessProofs(ctx, r.ID()+1); err != nil || len(none) != 0 {
		t.Errorf("another run's proofs: %+v %v", none, err)
	}
	if res, err := s.Verify(ctx, head); err != nil || !res.OK {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	seq := seqOf(t, db, `SELECT seq FROM access_proofs`)
	mustExec(t, db, `UPDATE access_proofs SET verdict = 'equivalent', differing = 0 WHERE seq = ?`, seq)
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	res, err := s2.Verify(ctx, head)
	if err != nil || res.OK || res.Broken == nil || res.Broken.Seq != seq {
		t.Errorf("verify after editing the verdict: %+v %v, want broken at %d", res, err, seq)
	}
}
