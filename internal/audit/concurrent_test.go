package audit

import (
	"context"
	"sync"
	"testing"
)

// TestConcurrentWriters records runs from several goroutines on one Store
// and from a second Store on the same file (another process) at once: the
// chain must come out as one intact sequence in commit order.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s1, path := openTest(t)
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var wg sync.WaitGroup
	heads := make(chan string, 8)
	for i := 0; i < 8; i++ {
		s := s1
		if i%2 == 1 {
			s = s2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, head, err := recordRunE(s, 6)
			if err != nil {
				t.Error(err)
				return
			}
			heads <- head
		}()
	}
	wg.Wait()
	close(heads)
	res, err := s1.Verify(ctx, "")
	if err != nil || !res.OK || res.Runs != 8 {
		t.Fatalf("Verify after concurrent runs = %+v, broken %v, %v; want intact with 8 runs", res, res.Broken, err)
	}
	for h := range heads {
		if r, err := s2.Verify(ctx, h); err != nil || !r.AnchorFound {
			t.Errorf("receipt %s not found in the chain: %+v, %v", short(h), r, err)
		}
	}
}
