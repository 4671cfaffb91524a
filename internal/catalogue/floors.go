package catalogue

// Floor is the lowest value a Kafka release accepts for an integer config
// where an older release accepted less: a value below it is refused when
// the config is written, and a broker with it in server.properties does
// not start.
type Floor struct {
	Scope Scope
	Key   string
	Min   int64
	// Since is the first release line with this floor.
	Since Version
	// Unit reads Min for people ("1 MiB"); empty when the number says it.
	Unit string
	Ref  string
}

// Floors are the raised minimums between Kafka 3.9 and 4.x, read from the
// releases' ConfigDef validators (testdata/kafka); `plan
// --raise-to-target-minimums` raises topic values to them and `check`
// reports values below them.
var Floors = []Floor{
	{ScopeTopic, "segment.bytes", 1 << 20, V4_1, "1 MiB", "KAFKA-19080"},
	{ScopeBroker, "log.segment.bytes", 1 << 20, V4_0, "1 MiB", "Kafka 4.0 upgrade notes"},
	{ScopeBroker, "remote.log.manager.copier.thread.pool.size", 1, V4_0, "", "Kafka 4.0 upgrade notes (-1 is no longer valid)"},
	{ScopeBroker, "remote.log.manager.expiration.thread.pool.size", 1, V4_0, "", "Kafka 4.0 upgrade notes (-1 is no longer valid)"},
	{ScopeBroker, "metadata.log.segment.bytes", 8 << 20, V4_1, "8 MiB", "Kafka 4.1 ConfigDef"},
}

// FloorsFor returns the floors of scope that a target version enforces.
func FloorsFor(scope Scope, target Version) []Floor {
	var out []Floor
	for _, f := range Floors {
		if f.Scope == scope && target.AtLeast(f.Since) {
			out = append(out, f)
		}
	}
	return out
}

// FloorOf returns key's floor in scope on target, if it has one.
func FloorOf(scope Scope, key string, target Version) (Floor, bool) {
	for _, f := range Floors {
		if f.Scope == scope && f.Key == key && target.AtLeast(f.Since) {
			return f, true
		}
	}
	return Floor{}, false
}
