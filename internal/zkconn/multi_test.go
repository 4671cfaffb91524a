package zkconn

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/zkmigrate/zkmigrate/internal/zkwire"
	"github.com/zkmigrate/zkmigrate/internal/zkwire/zkwiretest"
)

// silentServer accepts one session and then never answers a request.
func silentServer(t *testing.T) net.Conn { return zkwiretest.Serve(t, nil) }

// Closing the pool releases the reads waiting on it instead of leaving
// them blocked for a reply that will not come.
func TestMultiPoolCloseReleasesWaitingReads(t *testing.T) {
	cl, err := zkwire.Connect(silentServer(t), zkwire.Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := newMultiPool(1, cl, func() (*zkwire.Client, error) { return nil, errors.New("no second session") })
	errs := make(chan error, 10)
	for range 10 {
		go func() { _, err := p.read(zkwire.Op{Path: "/x"}, time.Now().Add(time.Hour)); errs <- err }()
	}
	time.Sleep(100 * time.Millisecond) // the reads are sent and waiting
	p.close()
	for range 10 {
		select {
		case err := <-errs:
			if err == nil {
				t.Fatal("a read succeeded against a server that never answers")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a read is still blocked after Close")
		}
	}
}

// The probe gives up on a server that never answers multiRead (ZooKeeper
// before 3.6 drops requests of unknown types) instead of waiting forever.
func TestProbeGivesUpOnSilentServer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the probe timeout")
	}
	cl, err := zkwire.Connect(silentServer(t), zkwire.Options{SessionTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := probeMultiRead(cl, "/"); err == nil {
		t.Fatal("the probe succeeded against a server that never answers")
	}
}
