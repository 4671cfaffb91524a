package audit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"

	"github.com/zkmigrate/zkmigrate/migrations"
)

// ErrSchemaTooNew is returned (wrapped) by Open for a database written by a
// newer version of the tool.
var ErrSchemaTooNew = errors.New("audit: database schema is newer than this tool")

// SchemaError reports a database whose schema version the tool cannot use.
type SchemaError struct {
	Path    string // database file
	Version int    // the database's schema version
	Known   int    // the newest version this tool knows
	Newest  string // the newest migration file this tool knows
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("audit: %s has schema version %d but this migrate knows only up to version %d (migrations/%s); use a newer migrate, or another --audit-db",
		e.Path, e.Version, e.Known, e.Newest)
}

// Unwrap makes errors.Is(err, ErrSchemaTooNew) true.
func (e *SchemaError) Unwrap() error { return ErrSchemaTooNew }

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

// loadMigrations reads the embedded files in version order; versions must
// run 1, 2, 3, ... without gaps.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("audit: read migrations: %v", err)
	}
	var ms []migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("audit: read migration %s: %v", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("audit: migration %s: expected version %04d", m.name, i+1)
		}
	}
	if len(ms) == 0 {
		return nil, errors.New("audit: no migrations embedded")
	}
	return ms, nil
}

// SchemaVersion is the newest schema version this tool knows.
func SchemaVersion() int {
	ms, err := loadMigrations(migrations.FS)
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate brings the schema up to maxVersion (-1: newest) in one
// transaction.
func (s *Store) migrate(ctx context.Context, maxVersion int) error {
	ms, err := loadMigrations(migrations.FS)
	if err != nil {
		return err
	}
	if maxVersion >= 0 && maxVersion < len(ms) {
		ms = ms[:maxVersion]
	}
	// Up to date (the common case, and every read command): decided with
	// a plain read, without taking the write lock from a running apply.
	var have int
	if err := s.w.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&have); err == nil {
		all, _ := loadMigrations(migrations.FS)
		if have > len(all) {
			return &SchemaError{Path: s.path, Version: have, Known: len(all), Newest: all[len(all)-1].name}
		}
		if have >= len(ms) {
			return nil
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("audit: open %s: %v", s.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("audit: open %s: %v", s.path, err)
	}
	var cur int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&cur); err != nil {
		return fmt.Errorf("audit: open %s: read schema version: %v", s.path, err)
	}
	if all, _ := loadMigrations(migrations.FS); cur > len(all) {
		return &SchemaError{Path: s.path, Version: cur, Known: len(all), Newest: all[len(all)-1].name}
	}
	for _, m := range ms {
		if m.version <= cur {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("audit: %s: apply migrations/%s: %v", s.path, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, timestamp(s.now())); err != nil {
			return fmt.Errorf("audit: %s: record migration %s: %v", s.path, m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("audit: %s: commit migrations: %v", s.path, err)
	}
	return nil
}

// Version returns the database's schema version.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("audit: %s: read schema version: %v", s.path, err)
	}
	return v, nil
}
