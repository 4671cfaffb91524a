package policy

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkmigrate/zkmigrate/internal/props"
	goldenfile "github.com/zkmigrate/zkmigrate/internal/testkit/golden"
)

// golden compares got with testdata file path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Assert(t, path, got)
}

// secretMarker starts every secret value in testdata/convert.
const secretMarker = "S3CRET-VALUE"

func TestConvertGolden(t *testing.T) {
	tests := []struct {
		dir      string
		adapters int  // adapter entries expected in the policy file
		wantErr  bool // a *ConfigError
	}{
		{"none", 0, false},
		{"create-only", 1, false},
		{"alter-only", 1, false},
		{"both", 2, false},
		{"unified-conflict", 0, true},
		{"unified-only", 0, false},
		{"differing-brokers", 3, false},
		{"secrets", 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "convert", tc.dir)
			paths, err := filepath.Glob(filepath.Join(dir, "*.properties"))
			if err != nil || len(paths) == 0 {
				t.Fatalf("no properties in %s", dir)
			}
			var files []*props.File
			for _, p := range paths {
				f, err := props.Load(p)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			conv, err := Convert(files)
			if tc.wantErr {
				var ce *ConfigError
				if !errors.As(err, &ce) {
					t.Fatalf("Convert error = %v, want a *ConfigError", err)
				}
				golden(t, filepath.Join(dir, "error.golden"), []byte(err.Error()+"\n"))
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "policy.yaml.golden"), conv.Policy)
			golden(t, filepath.Join(dir, "controller.properties.golden"), conv.ControllerConfig)
			var warnings []byte
			for _, w := range conv.Warnings {
				warnings = append(warnings, w+"\n"...)
			}
			golden(t, filepath.Join(dir, "warnings.golden"), warnings)
			for name, out := range map[string][]byte{"policy": conv.Policy, "controller config": conv.ControllerConfig, "warnings": []byte(strings.Join(conv.Warnings, "\n"))} {
				if bytes.Contains(out, []byte(secretMarker)) {
					t.Errorf("%s output holds a secret value:\n%s", name, out)
				}
			}
			// The generated file is a valid policy whose adapters never deny.
			p, err := Parse("converted.yaml", conv.Policy)
			if err != nil {
				t.Fatalf("generated policy does not load: %v\n%s", err, conv.Policy)
			}
			if got := len(p.Adapters()); got != tc.adapters {
				t.Errorf("generated policy has %d adapters, want %d", got, tc.adapters)
			}
			if got := len(p.Notes()); got != tc.adapters {
				t.Errorf("generated policy has %d notes, want %d", got, tc.adapters)
			}
			// The controller properties read back with the legacy keys intact.
			cf, err := props.Parse("controller.properties", bytes.NewReader(conv.ControllerConfig))
			if err != nil {
				t.Fatalf("controller properties do not parse: %v", err)
			}
			for _, f := range files {
				for _, k := range []string{KeyCreatePolicy, KeyAlterPolicy} {
					if _, ok := f.Get(k); ok {
						if _, ok := cf.Get(k); !ok {
							t.Errorf("controller properties lack %s", k)
						}
					}
				}
			}
			if _, ok := cf.Get(KeyUnifiedPolicy); ok {
				t.Errorf("controller properties set %s, which no Kafka release reads", KeyUnifiedPolicy)
			}
		})
	}
}

func TestConvertNoFiles(t *testing.T) {
	if _, err := Convert(nil); err == nil {
		t.Fatal("Convert(nil) succeeded, want an error")
	}
}

func TestPropEscapeRoundTrip(t *testing.T) {
	for _, v := range []string{"plain", " leading space", "a=b:c", "#hash", "tab\there", "multi\nline", "ünïcode €", "back\\slash"} {
		src := propKey("k"+v) + "=" + propValue(v) + "\n"
		f, err := props.Parse("x", strings.NewReader(src))
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if len(f.Entries) != 1 || f.Entries[0].Key != "k"+v || f.Entries[0].Value != v {
			t.Errorf("round trip of %q via %q = %+v", v, src, f.Entries)
		}
	}
}

func TestIsKafkaKey(t *testing.T) {
	for k, want := range map[string]bool{
		"broker.id": true, "log.retention.ms": true, "listener.name.x.ssl.keystore.location": true,
		"create.topic.policy.class.name": true, "zookeeper.connect": true, "node.id": true,
		"policy.max.partitions": false, "com.example.policy.min.replicas": false, "retention.floor.ms": false,
	} {
		if got := isKafkaKey(k); got != want {
			t.Errorf("isKafkaKey(%q) = %v, want %v", k, got, want)
		}
	}
}
