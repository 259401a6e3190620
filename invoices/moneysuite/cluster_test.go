package moneysuite

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lib/pq"

	"cardpay/store/devdb"
)

// privateCluster is a PostgreSQL cluster of one test's own, initialised in t.TempDir()
// from the installed binaries and listening on a free port, so that the test may kill it
// (SIGKILL) and start it again without touching the shared development server on
// 127.0.0.1:5432. As root it runs as the "postgres" OS user, as devdb's local cluster
// does, since PostgreSQL refuses to run as root.
type privateCluster struct {
	t    *testing.T
	bin  string // the directory of initdb, pg_ctl and postgres
	dir  string // the data directory
	port int
	// runAs is "postgres" when we are root, else "" (ourselves).
	runAs string
}

// newPrivateCluster initialises and starts a cluster; it is stopped when the test ends.
// Missing binaries fail the test with the reason: the suite skips nothing.
func newPrivateCluster(t *testing.T) *privateCluster {
	t.Helper()
	initdb, err := devdb.Tool("initdb")
	if err != nil {
		t.Fatalf("private cluster: %v (Debian: apt-get install postgresql)", err)
	}
	c := &privateCluster{t: t, bin: filepath.Dir(initdb), port: clusterFreePort(t)}
	for _, tool := range []string{"pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(c.bin, tool)); err != nil {
			t.Fatalf("private cluster: %s is not beside %s: %v", tool, initdb, err)
		}
	}
	root := t.TempDir()
	c.dir = filepath.Join(root, "pgdata")
	if err := os.Mkdir(c.dir, 0o700); err != nil {
		t.Fatalf("private cluster: %v", err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("private cluster: running as root needs the OS user postgres (apt-get install postgresql creates it): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			t.Fatalf("private cluster: %v", err)
		}
		// t.TempDir's parent is private to us (0700): the postgres user must pass through
		// it to reach its data directory.
		for _, d := range []string{filepath.Dir(root), root} {
			if err := os.Chmod(d, 0o711); err != nil {
				t.Fatalf("private cluster: %v", err)
			}
		}
		c.runAs = "postgres"
	}
	// --no-sync only skips initdb's own final flush; the server itself runs with fsync and
	// synchronous commit on (the defaults), since the test is about what survives a crash.
	if out, err := c.run(filepath.Join(c.bin, "initdb"), "-D", c.dir, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		t.Fatalf("private cluster: initdb: %v\n%s", err, out)
	}
	if err := c.start(); err != nil {
		t.Fatalf("private cluster: %v", err)
	}
	t.Cleanup(c.stop)
	return c
}

// run runs a PostgreSQL program as the cluster's user, from / (which that user may read).
func (c *privateCluster) run(name string, args ...string) (string, error) {
	if c.runAs != "" {
		args = append([]string{"-u", c.runAs, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// start starts the server and waits until it accepts connections (after a kill, that is
// after its crash recovery). A start right after a kill may meet the old server's
// processes still going away; it is tried again for a while.
func (c *privateCluster) start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", c.port, c.dir)
	var out string
	var err error
	for try := 0; try < 20; try++ {
		out, err = c.run(filepath.Join(c.bin, "pg_ctl"), "-D", c.dir, "-o", opts, "-l", filepath.Join(c.dir, "server.log"),
			"-w", "-t", "60", "start")
		if err == nil {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("pg_ctl start: %v: %s (see %s)", err, out, filepath.Join(c.dir, "server.log"))
}

// stop ends the cluster at the end of the test (immediate: nothing in it is kept).
func (c *privateCluster) stop() {
	if out, err := c.run(filepath.Join(c.bin, "pg_ctl"), "-D", c.dir, "-m", "immediate", "-w", "stop"); err != nil {
		c.t.Logf("private cluster: pg_ctl stop: %v: %s", err, out)
		if pid, err := c.postmasterPID(); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// DSN is the URL of database name on the cluster.
func (c *privateCluster) DSN(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=5", c.port, name)
}

// createDatabase creates database name.
func (c *privateCluster) createDatabase(ctx context.Context, name string) error {
	db, err := sql.Open("postgres", c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name))
	return err
}

// postmasterPID reads the server's process id from the first line of postmaster.pid.
func (c *privateCluster) postmasterPID() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(first))
}

// kill crashes the server: SIGKILL to the postmaster, as an out-of-memory killer or an
// operator's kill -9 would. Its children (backends, the WAL writer, the checkpointer)
// notice their parent's death and exit on their own; those still there after a second
// are killed too, since a new postmaster refuses to start while any of them holds the old
// shared memory. It answers how many server processes died, and how many of them had to
// be killed after the postmaster.
func (c *privateCluster) kill() (died, stragglers int, err error) {
	pid, err := c.postmasterPID()
	if err != nil {
		return 0, 0, fmt.Errorf("private cluster: no postmaster.pid: %w", err)
	}
	// Its children are listed before the kill: once it dies they belong to init.
	children := clusterChildren(pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return 0, 0, fmt.Errorf("private cluster: kill %d: %w", pid, err)
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) && anyAlive(append([]int{pid}, children...)) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, ch := range children {
		if processAlive(ch) {
			if syscall.Kill(ch, syscall.SIGKILL) == nil {
				stragglers++
			}
		}
	}
	deadline = time.Now().Add(10 * time.Second)
	for anyAlive(append([]int{pid}, children...)) {
		if time.Now().After(deadline) {
			return 1 + len(children), stragglers, fmt.Errorf("private cluster: processes of postmaster %d outlived SIGKILL", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 1 + len(children), stragglers, nil
}

// clusterChildren lists the processes whose parent is pid (from /proc).
func clusterChildren(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(n); ok && ppid == pid {
			out = append(out, n)
		}
	}
	return out
}

// procStat reads a process's parent and state from /proc/<pid>/stat.
func procStat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the
	// last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0][0], err == nil
}

// processAlive says whether pid runs; a zombie (dead, not yet reaped by init) does not.
func processAlive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

func anyAlive(pids []int) bool {
	for _, p := range pids {
		if processAlive(p) {
			return true
		}
	}
	return false
}

// clusterFreePort picks a port nobody listens on (never 5432, where the shared server is).
func clusterFreePort(t *testing.T) int {
	t.Helper()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port != 5432 && port != 54329 {
			return port
		}
	}
}
