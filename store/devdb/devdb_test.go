package devdb_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/store"
	"cardpay/store/devdb"
	"cardpay/store/storetest"
)

func TestLocatePrefersDatabaseURL(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://app@db.internal:6543/cardpay?sslmode=require")
	srv, err := devdb.Locate(context.Background(), devdb.Options{})
	require.NoError(t, err)
	assert.Equal(t, "DATABASE_URL", srv.Origin)
	assert.Equal(t, "cardpay", srv.Database("other"))
	assert.Equal(t, "postgres://app@db.internal:6543/x?sslmode=require", srv.DSN("x"))
}

func TestLocateRejectsBadDatabaseURL(t *testing.T) {
	t.Setenv("DATABASE_URL", "not a url")
	_, err := devdb.Locate(context.Background(), devdb.Options{})
	assert.Error(t, err)
}

// TestLocateStartsLocalCluster exercises the fallback that a fresh machine without a
// running server takes: initdb + pg_ctl into a project-local directory.
func TestLocateStartsLocalCluster(t *testing.T) {
	if _, err := exec.LookPath("initdb"); err != nil {
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) == 0 {
			t.Fatal("PostgreSQL binaries are required for this test (apt-get install postgresql)")
		}
	}
	// Not t.TempDir: its parent is private to us, and as root the cluster runs as the
	// postgres OS user, who must reach the directory.
	dir, err := os.MkdirTemp("", "cardpay-pg-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	data := filepath.Join(dir, "pg")
	opts := devdb.Options{DataDir: data, Port: 54391, SkipEnv: true, SkipDefault: true}
	ctx := context.Background()
	srv, err := devdb.Locate(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { stopCluster(t, data) })
	assert.Contains(t, srv.Origin, "local cluster")

	require.NoError(t, srv.EnsureDatabase(ctx, "cardpay_local"))
	require.NoError(t, srv.EnsureDatabase(ctx, "cardpay_local"), "creating twice is fine")
	st, err := store.Open(ctx, srv.DSN("cardpay_local"))
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Migrate(ctx))

	// A second Locate finds the running cluster instead of starting another.
	again, err := devdb.Locate(ctx, opts)
	require.NoError(t, err)
	assert.Equal(t, srv.DSN("x"), again.DSN("x"))
}

func stopCluster(t *testing.T, data string) {
	bin := "pg_ctl"
	if _, err := exec.LookPath(bin); err != nil {
		m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
		if len(m) > 0 {
			bin = m[len(m)-1]
		}
	}
	args := []string{"-D", data, "-m", "immediate", "stop"}
	cmd := exec.Command(bin, args...)
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("stop cluster: %v: %s", err, out)
	}
}

// A test's database (storetest) commits without waiting for the disk, on every
// connection of its pool.
func TestThrowawayDatabaseCommitsAsynchronously(t *testing.T) {
	ctx := context.Background()
	d, err := storetest.New(ctx)
	require.NoError(t, err)
	defer d.Close()
	d.Store.DB.SetMaxOpenConns(3)
	for range 3 {
		var v string
		require.NoError(t, d.Store.DB.GetContext(ctx, &v, `SHOW synchronous_commit`))
		assert.Equal(t, "off", v)
	}
}
