// Package store is the PostgreSQL access layer. Methods are named after the nouns they
// return, and every method that reads a buyer's data takes the buyer's id: nothing owned
// by a buyer is ever loaded by its own id alone.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
}

// Open connects to dsn and checks the connection.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, err := sqlx.Open("postgres", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(10)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return &Store{DB: db, dsn: dsn}, nil
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
