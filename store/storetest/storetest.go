// Package storetest gives a test package its own freshly migrated database on the
// server that devdb.Locate finds, and drops it afterwards, so packages run in parallel
// without seeing each other's rows.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"cardpay/store"
	"cardpay/store/devdb"
)

// DB is one test package's database.
type DB struct {
	Store  *store.Store
	Server devdb.Server
	Name   string
}

// Run is for TestMain: it creates and migrates a database, runs the tests, checks that
// no card number was stored anywhere in it (store.CardNumbers), then drops the database.
// It exits the process with the tests' code, or 1 when a card number was found.
func Run(m *testing.M, db **DB) { RunThen(m, db, nil) }

// RunThen is Run with after called once the tests have run, before the database is
// dropped (the security suite prints its table there).
func RunThen(m *testing.M, db **DB, after func()) {
	d, err := New(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "storetest:", err)
		os.Exit(1)
	}
	*db = d
	code := m.Run()
	if after != nil {
		after()
	}
	if found, err := d.Store.CardNumbers(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "storetest: card data scan:", err)
		code = 1
	} else if len(found) > 0 {
		// The card data rule: no card number is ever stored, not even by the tests.
		for _, f := range found {
			fmt.Fprintf(os.Stderr, "storetest: a card number (%s) is stored in %s\n", f.Masked, f.Table)
		}
		code = 1
	}
	d.Close()
	os.Exit(code)
}

// New creates a uniquely named, migrated database.
func New(ctx context.Context) (*DB, error) {
	srv, err := devdb.Locate(ctx, devdb.Options{DataDir: dataDir()})
	if err != nil {
		return nil, err
	}
	name := "cardpay_test_" + callerPackage() + "_" + randomSuffix()
	if err := srv.EnsureDatabase(ctx, name); err != nil {
		return nil, err
	}
	if err := srv.Throwaway(ctx, name); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, srv.DSN(name))
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return &DB{Store: st, Server: srv, Name: name}, nil
}

// Close drops the database.
func (d *DB) Close() {
	d.Store.Close()
	_ = d.Server.DropDatabase(context.Background(), d.Name)
}

// dataDir puts the project-local cluster (used only when nothing else is reachable) in
// the module root's .data, wherever the test binary runs from.
func dataDir() string {
	dir, _ := os.Getwd()
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".data", "postgres")
		}
	}
	return filepath.Join(dir, ".data", "postgres")
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

func callerPackage() string {
	dir, _ := os.Getwd()
	name := unsafeChars.ReplaceAllString(strings.ToLower(filepath.Base(dir)), "_")
	if len(name) > 20 {
		name = name[:20]
	}
	return name
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Logs is a log sink that the goroutines of a test (workers, servers) may write to at
// once; String is what was logged so far. Tests that run background work beside their
// database read it, for instance to check that no card number was logged.
type Logs struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
