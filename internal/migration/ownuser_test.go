package migration

import (
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

func TestOwnUser(t *testing.T) {
	for _, tt := range []struct {
		name string
		conn *kafkaconn.Conn
		want string
	}{
		{"no connection", nil, ""},
		{"plaintext", &kafkaconn.Conn{Config: kafkaconn.Default()}, ""},
		{"scram", &kafkaconn.Conn{Config: &kafkaconn.Config{Mechanism: "SCRAM-SHA-512", User: "admin"}}, "admin"},
		{"plain", &kafkaconn.Conn{Config: &kafkaconn.Config{Mechanism: "PLAIN", User: "ops"}}, "ops"},
		{"delegation token", &kafkaconn.Conn{Config: &kafkaconn.Config{Mechanism: "SCRAM-SHA-256", User: "tokid", Token: true}}, ""},
		{"--principal does not change who signs in", &kafkaconn.Conn{Principal: "User:other", Config: &kafkaconn.Config{Mechanism: "SCRAM-SHA-256", User: "admin", Principal: "User:other"}}, "admin"},
	} {
		if got := OwnUser(tt.conn); got != tt.want {
			t.Errorf("%s: OwnUser = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestJustifyOwnUser: a saved --prune plan that deletes a SCRAM credential
// of the user apply authenticates as now is refused by name, though the
// user who planned it could delete it.
func TestJustifyOwnUser(t *testing.T) {
	tgt := func() *snapshot.Snapshot {
		s := target()
		s.ScramUsers = []snapshot.ScramUser{{Name: "admin", Credentials: []snapshot.ScramCredential{{Mechanism: "SCRAM-SHA-512", Iterations: 4096}}}}
		return s
	}
	saved, err := BuildPlan(source(), tgt(), nil, plan.Options{Prune: true, OwnUser: "planner", Include: []plan.Kind{plan.KindScramUser}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Changes) != 1 || saved.Changes[0].ID != "scram-user:admin/SCRAM-SHA-512" || saved.Changes[0].Action != plan.ActionDelete {
		t.Fatalf("saved plan %+v, want admin's credential deleted", saved.Changes)
	}
	if _, err := Justify(saved, source(), tgt(), nil, nil, "planner", nil); err != nil {
		t.Errorf("applied as the planner: %v", err)
	}
	_, err = Justify(saved, source(), tgt(), nil, nil, "admin", nil)
	if err == nil || !strings.Contains(err.Error(), "scram-user:admin/SCRAM-SHA-512: blocked now: --prune would delete the SCRAM credential of User:admin") {
		t.Errorf("applied as admin: %v, want the delete refused by name", err)
	}
}
