package main

import (
	"context"
	"io"

	"github.com/zkmigrate/zkmigrate/internal/cliflags"
	"github.com/zkmigrate/zkmigrate/internal/migration"
	"github.com/zkmigrate/zkmigrate/internal/snapshot"
)

// loadSource reads the source f names: ZooKeeper, its data directory, the
// brokers or the snapshot file, then the --broker-config files. Progress
// goes to progress (io.Discard or nil for none) while ZooKeeper is read.
func loadSource(ctx context.Context, f *cliflags.Source, progress io.Writer) (*snapshot.Snapshot, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	r, err := f.Request(hooks(progress))
	if err != nil {
		return nil, err
	}
	p := zkMeter(progress)
	r.ReadProgress = p.Update
	s, err := migration.LoadSource(ctx, r)
	p.Clear()
	return s, err
}

// readKafkaSource reads the source through its brokers' admin protocol
// alone (check's cross-check).
func readKafkaSource(ctx context.Context, f *cliflags.Source, progress io.Writer) (*snapshot.Snapshot, error) {
	return migration.ReadKafka(ctx, f.Where().Kafka, hooks(progress))
}
