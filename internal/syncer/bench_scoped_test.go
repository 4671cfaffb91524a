package syncer

import (
	"context"

	"github.com/zkmigrate/zkmigrate/internal/kafkaconn"
	"github.com/zkmigrate/zkmigrate/internal/kread"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// In a file of its own so that bench_test.go alone also builds on the code
// before scoped target reads, for side-by-side figures.
func init() {
	scopedStage = func(st *Stages, target *kafkaconn.Conn) {
		st.ReadTargetScoped = func(ctx context.Context, sc kread.Scope) (*snapshot.Snapshot, error) {
			return kread.Read(ctx, target, kread.Options{Scope: &sc})
		}
	}
}
