// Package devdb finds or starts the PostgreSQL server of development and tests, the way
// DESIGN.md §3 orders it. It lives apart from store so that the data access layer, which
// production uses, carries no code that runs initdb or pg_ctl.
package devdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"
)

// Server is a PostgreSQL server we can reach, as a base URL whose database part is
// swapped per use: the app's own database, or one fresh database per test package.
type Server struct {
	base *url.URL
	// Origin says how the server was found, for the start-up log.
	Origin string
}

// DSN returns the connection URL for database name on this server.
func (s Server) DSN(name string) string {
	u := *s.base
	u.Path = "/" + name
	return u.String()
}

// Database is the database named in DATABASE_URL, or def when the server was found
// some other way.
func (s Server) Database(def string) string {
	if s.Origin == "DATABASE_URL" {
		if name := strings.TrimPrefix(s.base.Path, "/"); name != "" {
			return name
		}
	}
	return def
}

// Options tunes Locate; the zero value is what the app uses.
type Options struct {
	// DataDir holds the project-local cluster (default ".data/postgres").
	DataDir string
	// Port of the project-local cluster (default 54329, away from the usual 5432).
	Port int
	// SkipEnv and SkipDefault let tests exercise the local-cluster path on a machine
	// that also has DATABASE_URL or a server on 5432.
	SkipEnv, SkipDefault bool
	Log                  func(format string, args ...any)
}

// ErrNoPostgres says that no server was reachable and none could be started.
var ErrNoPostgres = errors.New("no PostgreSQL found: set DATABASE_URL, start a server on 127.0.0.1:5432, or install PostgreSQL (Debian: apt-get install postgresql)")

// Locate finds a PostgreSQL server the way DESIGN.md §3 orders it: DATABASE_URL, then a
// server on 127.0.0.1:5432, then a project-local cluster started from the installed
// binaries (as a dedicated OS user when we are root, since PostgreSQL refuses root).
func Locate(ctx context.Context, o Options) (Server, error) {
	if o.DataDir == "" {
		o.DataDir = filepath.Join(".data", "postgres")
	}
	if o.Port == 0 {
		o.Port = 54329
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if env := os.Getenv("DATABASE_URL"); env != "" && !o.SkipEnv {
		u, err := url.Parse(env)
		if err != nil || u.Scheme == "" {
			return Server{}, fmt.Errorf("devdb: DATABASE_URL is not a URL (postgres://user@host:port/db)")
		}
		return Server{base: u, Origin: "DATABASE_URL"}, nil
	}
	if !o.SkipDefault {
		u := &url.URL{Scheme: "postgres", User: url.User("postgres"), Host: "127.0.0.1:5432", Path: "/postgres", RawQuery: "sslmode=disable"}
		if reachable(ctx, u.String()) {
			return Server{base: u, Origin: "127.0.0.1:5432"}, nil
		}
	}
	u := &url.URL{Scheme: "postgres", User: url.User("postgres"), Host: "127.0.0.1:" + strconv.Itoa(o.Port), Path: "/postgres", RawQuery: "sslmode=disable"}
	if reachable(ctx, u.String()) {
		return Server{base: u, Origin: "local cluster " + o.DataDir}, nil
	}
	bin, err := postgresBinDir()
	if err != nil {
		return Server{}, err
	}
	if err := startLocalCluster(ctx, bin, o); err != nil {
		return Server{}, err
	}
	if !reachable(ctx, u.String()) {
		return Server{}, fmt.Errorf("devdb: local cluster in %s started but does not answer on port %d (see %s)", o.DataDir, o.Port, filepath.Join(o.DataDir, "server.log"))
	}
	return Server{base: u, Origin: "local cluster " + o.DataDir}, nil
}

func reachable(ctx context.Context, dsn string) bool {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return db.PingContext(ctx) == nil
}

// postgresBinDir finds initdb and pg_ctl: on PATH, else Debian's versioned directories.
func postgresBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Highest major version first.
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

// Tool finds one of PostgreSQL's client programs (pg_dump, psql): on PATH, else in
// Debian's versioned directories, highest major version first.
func Tool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, d := range dirs {
		if p := filepath.Join(d, name); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("devdb: %s not found (install Debian's postgresql-client)", name)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func majorOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func startLocalCluster(ctx context.Context, bin string, o Options) error {
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("devdb: create %s: %w", dir, err)
	}
	runAs, err := clusterUser(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		o.Log("initialising a PostgreSQL cluster in %s", dir)
		// --no-sync: a development cluster need not survive a power cut, and it halves start-up.
		if out, err := run(ctx, runAs, filepath.Join(bin, "initdb"), "-D", dir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
			return fmt.Errorf("devdb: initdb: %w: %s", err, out)
		}
	}
	o.Log("starting PostgreSQL from %s on 127.0.0.1:%d", dir, o.Port)
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", o.Port, dir)
	if out, err := run(ctx, runAs, filepath.Join(bin, "pg_ctl"), "-D", dir, "-o", opts, "-l", filepath.Join(dir, "server.log"), "-w", "start"); err != nil {
		return fmt.Errorf("devdb: pg_ctl start: %w: %s", err, out)
	}
	return nil
}

// clusterUser decides who runs the cluster: ourselves, or (as root, which PostgreSQL
// refuses) the "postgres" OS user, who must then own the data directory.
func clusterUser(dir string) (string, error) {
	if os.Geteuid() != 0 {
		return "", nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return "", fmt.Errorf("devdb: running as root needs an OS user 'postgres' to own the cluster (apt-get install postgresql creates it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	}); err != nil {
		return "", fmt.Errorf("devdb: chown %s: %w", dir, err)
	}
	return "postgres", nil
}

func run(ctx context.Context, runAs, name string, args ...string) (string, error) {
	if runAs != "" {
		args = append([]string{"-u", runAs, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.CommandContext(ctx, name, args...)
	// Run from / so the postgres user never needs access to our working directory.
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// EnsureDatabase creates database name on the server if it does not exist yet.
func (s Server) EnsureDatabase(ctx context.Context, name string) error {
	db, err := sql.Open("postgres", s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("devdb: look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name)); err != nil {
		var pqErr *pq.Error
		// Two instances starting together may race to create it; either one winning is fine.
		if errors.As(err, &pqErr) && pqErr.Code == "42P04" {
			return nil
		}
		return fmt.Errorf("devdb: create database %s: %w", name, err)
	}
	return nil
}

// Throwaway makes database name a test's: its commits return before their WAL reaches
// the disk (synchronous_commit off), which saves a disk flush per commit (about 0.4 ms
// here, more on a slow disk) and loses nothing unless the PostgreSQL server itself
// crashes — the tests that kill it use a cluster of their own. New connections only.
func (s Server) Throwaway(ctx context.Context, name string) error {
	db, err := sql.Open("postgres", s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "ALTER DATABASE "+pq.QuoteIdentifier(name)+" SET synchronous_commit = off"); err != nil {
		return fmt.Errorf("devdb: %s as a throwaway: %w", name, err)
	}
	return nil
}

// DropDatabase removes database name, ending its connections first.
func (s Server) DropDatabase(ctx context.Context, name string) error {
	db, err := sql.Open("postgres", s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)")
	return err
}
