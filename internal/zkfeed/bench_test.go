package zkfeed

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkFeedStart starts the feed over 10,000 topics in memory, in
// each mode, and reports the goroutines it keeps per topic (one-shot:
// a watch per topic, each waited on by a goroutine here and by one more
// in zkconn on a real session; persistent: none).
func BenchmarkFeedStart(b *testing.B) {
	const topics = 10000
	for _, mode := range []string{"one-shot", "persistent"} {
		b.Run(mode, func(b *testing.B) {
			z := stdZK()
			for i := range topics {
				z.data[topicsPath+"/t"+strconv.Itoa(i)] = []byte(`{}`)
			}
			var open func() (session, error)
			if mode == "persistent" {
				open = z.open
			}
			var perTopic float64
			base := runtime.NumGoroutine()
			for b.Loop() {
				// the last loop's feed goroutines end once its context is done
				b.StopTimer()
				for i := 0; runtime.NumGoroutine() > base && i < 5000; i++ {
					time.Sleep(time.Millisecond)
				}
				b.StartTimer()
				before := runtime.NumGoroutine()
				ctx, cancel := context.WithCancel(context.Background())
				f, err := start(ctx, z, open)
				if err != nil {
					b.Fatal(err)
				}
				perTopic = float64(runtime.NumGoroutine()-before) / topics
				cancel()
				for range f.Events() {
				}
				z.mu.Lock()
				z.watch, z.child = map[string][]chan error{}, map[string][]chan error{}
				z.mu.Unlock()
			}
			b.ReportMetric(perTopic, "goroutines/topic")
		})
	}
}
