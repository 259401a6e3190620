// Package store is the PostgreSQL access layer. Methods are named after the nouns they
// return, and every method that reads a buyer's data takes the buyer's id: nothing owned
// by a buyer is ever loaded by its own id alone.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the PostgreSQL driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"cardpay/migrations"
)

// ErrNotFound is returned when a row does not exist, or exists for another buyer: the
// two cases look the same so that ids leak nothing.
var ErrNotFound = errors.New("store: not found")

// Store wraps the database handle.
type Store struct {
	DB *sqlx.DB
	// dsn is kept for the one connection that LISTEN needs of its own (ListenJobs).
	dsn string
	// events is told of the events buyers hear of (SetEvents): atomic, since a test
	// package's environments install theirs on one shared store.
	events atomic.Pointer[Events]
	// stmts are the prepared statements of the reads every signed-in page makes
	// (prepared): with lib/pq an unprepared query with arguments takes two round trips
	// (parse, then bind and execute), a prepared one takes one.
	stmts sync.Map // query text → *sqlx.Stmt
}

// Open connects to dsn and checks the connection. Every connection runs without
// PostgreSQL's JIT compilation (withoutJIT).
func Open(ctx context.Context, dsn string) (*Store, error) {
	dsn = withoutJIT(dsn)
	db, err := sqlx.Open("postgres", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	// As many kept idle as may be open: under load a pool that keeps fewer closes
	// connections between bursts and opens new PostgreSQL backends (a process each) again.
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return &Store{DB: db, dsn: dsn}, nil
}

// withoutJIT asks the server for jit=off on each connection, unless dsn says otherwise.
// The planner's estimate for a query with a subquery per row (the received invoices'
// state, a list's counts) passes jit_above_cost at a few thousand rows, and compiling it
// then took ~28 ms of a query that runs in 2 ms (BenchmarkReceivedInvoiceCounts); our
// queries are short, none gains from JIT. lib/pq sends a key it does not know as a
// run-time parameter of the connection.
func withoutJIT(dsn string) string {
	if strings.Contains(dsn, "jit=") {
		return dsn
	}
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("jit", "off")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn + " jit=off")
}

// Close releases the connections.
func (s *Store) Close() error { return s.DB.Close() }

// Migrate applies every embedded migration not yet applied. goose takes an advisory
// lock, so several instances starting at once migrate once.
func (s *Store) Migrate(ctx context.Context) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("store: migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, s.DB.DB, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

func notFound(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// prepared is the statement of query, prepared once for the pool (database/sql prepares
// it again on each connection that runs it, and after a reconnection). Only for the hot
// reads of every page: a statement's text is its key, so each query must be one of a
// bounded set.
func (s *Store) prepared(ctx context.Context, query string) (*sqlx.Stmt, error) {
	if st, ok := s.stmts.Load(query); ok {
		return st.(*sqlx.Stmt), nil
	}
	st, err := s.DB.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.stmts.LoadOrStore(query, st); loaded {
		_ = st.Close()
		return prev.(*sqlx.Stmt), nil
	}
	return st, nil
}

// getPrepared is sqlx's GetContext on the prepared statement of query.
func (s *Store) getPrepared(ctx context.Context, dest any, query string, args ...any) error {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, args...)
}

// selectPrepared is sqlx's SelectContext on the prepared statement of query.
func (s *Store) selectPrepared(ctx context.Context, dest any, query string, args ...any) error {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, args...)
}

// getOne reads one row into a T. No row is ErrNotFound; either way the error says what
// was read ("card 12"), the way every store error does.
func getOne[T any](ctx context.Context, q sqlx.QueryerContext, what, query string, args ...any) (T, error) {
	var v T
	err := sqlx.GetContext(ctx, q, &v, query, args...)
	if notFound(err) {
		return v, fmt.Errorf("store: %s: %w", what, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("store: %s: %w", what, err)
	}
	return v, nil
}
