package syncsession

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/plan"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
	"github.com/zkmigrate/zkmigrate/internal/zkfeed"
)

// With --principal-map every round's plan is built from the mapped source,
// and the loop follows the feed, its change rounds given the map's names
// (it used to poll: full rounds every PollEvery); a bad map stops the
// session before it connects.
func TestPrincipalMapRounds(t *testing.T) {
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "map.properties")
	if err := os.WriteFile(mapFile, []byte("zkmigrate.map=User:CN=a -> User:a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := newRounds(Request{PrincipalMapFile: mapFile})
	if err != nil {
		t.Fatal(err)
	}
	src := &snapshot.Snapshot{Source: snapshot.SourceZooKeeper, ACLs: []snapshot.ACL{{ResourceType: "Topic", ResourceName: "t", PatternType: "LITERAL", Principal: "User:CN=a", Host: "*", Operation: "Read", Permission: "Allow"}}}
	p, err := r.plan(src, &snapshot.Snapshot{Source: snapshot.SourceKafka})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || p.Changes[0].Resource.ACL.Principal != "User:a" || p.Options.PrincipalMap != r.pm.Digest() {
		t.Errorf("round plan %+v with map %q", p.Changes, p.Options.PrincipalMap)
	}
	events := make(chan zkfeed.Event)
	s := &Session{req: Request{PollEvery: 7 * time.Second}, rounds: r, events: events}
	if cfg := s.config(); cfg.PollEvery != 0 || cfg.Feed == nil || cfg.Principals == nil || cfg.Principals.TargetUser("CN=a") != "a" {
		t.Errorf("with a map: poll every %s, feed %v, principals %v; want the feed followed, users renamed in change rounds", cfg.PollEvery, cfg.Feed, cfg.Principals)
	}
	s.rounds, _ = newRounds(Request{Options: plan.Options{}})
	if cfg := s.config(); cfg.PollEvery != 0 || cfg.Principals != nil {
		t.Errorf("without a map: poll every %s, principals %v", cfg.PollEvery, cfg.Principals)
	}
	bad := filepath.Join(dir, "bad.properties")
	_ = os.WriteFile(bad, []byte("zkmigrate.map=User:a\n"), 0o600)
	if _, err := newRounds(Request{PrincipalMapFile: bad}); err == nil || !strings.Contains(err.Error(), "bad.properties:1") {
		t.Errorf("bad map: %v", err)
	}
}
