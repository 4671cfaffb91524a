package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	// The cgo SQLite driver; registers "sqlite3".
	_ "github.com/mattn/go-sqlite3"

	"github.com/zkmigrate/zkmigrate/internal/infile"
)

// BusyTimeout is how long a writer waits for another process's write lock
// before failing.
const BusyTimeout = 30 * time.Second

// DefaultLockStaleAfter is how long a target lock may go without a heartbeat
// before another run may reclaim it.
const DefaultLockStaleAfter = 6 * time.Hour

// Store is an open audit database. It is safe for concurrent use.
type Store struct {
	path string
	w    *sql.DB // one connection, BEGIN IMMEDIATE: every write
	r    *sql.DB // deferred transactions, query only: every read

	wmu      sync.Mutex           // serialises this process's writers; guards stmts, shapes, shapeKey, hasher
	stmts    map[string]*sql.Stmt // prepared on w's one connection, by SQL text
	shapes   map[string]*rowShape // by table and columns (shapeKey)
	shapeKey []byte
	hasher   rowHasher

	// LockStaleAfter is how long a target lock may go without a heartbeat
	// before AcquireTargetLock reclaims it (default DefaultLockStaleAfter).
	LockStaleAfter time.Duration

	// version is the schema version the database was migrated to: what
	// the writers may use (a plan's change states are stored once, in the
	// plan, from version 4 on).
	version int

	signer   *Key     // signs every run end's receipt (SetSigner)
	receipts *os.File // every run end's receipt is appended here (SetReceiptFile)

	now      func() time.Time
	hostname string
	pid      int
}

// DefaultPath returns the default audit database location:
// $XDG_STATE_HOME/zkmigrate/audit.db when XDG_STATE_HOME is set to an
// absolute path, else ~/.local/state/zkmigrate/audit.db. It returns "" when
// neither is known (no home directory).
func DefaultPath() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "zkmigrate", "audit.db")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "zkmigrate", "audit.db")
}

// dsn returns the go-sqlite3 data source name for path.
func dsn(path, txlock string, queryOnly bool) string {
	q := fmt.Sprintf("_journal_mode=WAL&_busy_timeout=%d&_foreign_keys=on&_synchronous=NORMAL&_txlock=%s",
		BusyTimeout.Milliseconds(), txlock)
	if queryOnly {
		q += "&_query_only=1"
	}
	// SQLite decodes %HH in URI file names, and the driver splits the DSN
	// at the first '?': escape both, and '#'.
	esc := strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
	return "file:" + esc + "?" + q
}

// Open opens (creating if needed) the audit database at path, or at
// DefaultPath when path is empty, and migrates its schema to the newest
// version this tool knows, in one transaction. A database whose schema is
// newer than the tool's is refused with an error naming the file and both
// versions (ErrSchemaTooNew).
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, -1)
}

// open opens path and migrates it up to version maxVersion (-1: all).
func open(ctx context.Context, path string, maxVersion int) (*Store, error) {
	if path == "" {
		path = DefaultPath()
		if path == "" {
			return nil, errors.New("audit: no audit database path: set --audit-db, or HOME or XDG_STATE_HOME")
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("audit: create directory for %s: %v", path, err)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("audit: %s is a directory, not a database file", path)
	} else if err == nil && fi.Size() > 0 {
		// A plan, a snapshot or a key given as the database is named,
		// and never opened by SQLite.
		if err := infile.ExpectFile(path, infile.AuditDB); err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
	}
	// Create the file with owner-only permissions before SQLite does; its
	// -wal and -shm files inherit them.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return nil, fmt.Errorf("audit: open %s: %v", path, err)
	} else {
		f.Close()
	}
	w, err := sql.Open("sqlite3", dsn(path, "immediate", false))
	if err != nil {
		return nil, fmt.Errorf("audit: open %s: %v", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := &Store{path: path, w: w, now: time.Now, pid: os.Getpid(), LockStaleAfter: DefaultLockStaleAfter,
		stmts: map[string]*sql.Stmt{}, shapes: map[string]*rowShape{}}
	s.hostname, _ = os.Hostname()
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("audit: open %s: %v", path, err)
	}
	if err := s.migrate(ctx, maxVersion); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&s.version); err != nil {
		w.Close()
		return nil, fmt.Errorf("audit: %s: read schema version: %v", path, err)
	}
	r, err := sql.Open("sqlite3", dsn(path, "deferred", true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("audit: open %s: %v", path, err)
	}
	r.SetMaxOpenConns(4)
	s.r = r
	return s, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	s.wmu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = map[string]*sql.Stmt{}
	s.wmu.Unlock()
	if s.receipts != nil {
		errs = append(errs, s.receipts.Close())
		s.receipts = nil
	}
	errs = append(errs, s.w.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("audit: close %s: %v", s.path, err)
	}
	return nil
}

// timestamp formats t for the database: RFC 3339 with nanoseconds, UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// parseTime reads a timestamp written by timestamp; zero on error.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
