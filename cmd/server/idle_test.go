package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/store/storetest"
)

// An idle server rests (issue 26): the whole server — the sandbox PSP and two job workers
// — started on a database of its own and left without a request makes fewer than 5
// transactions a second, counted by PostgreSQL itself (pg_stat_database, which counts the
// test's two readings too). Before the fix it made about 2,100: the
// sandbox PSP's loop woke itself after every pass, and each worker polled every second.
// It runs beside TestKilledDuringSubmission, whose server writes to another database:
// pg_stat_database counts this one's alone.
func TestAnIdleServerRests(t *testing.T) {
	t.Parallel() // beside the submission kill test: this one's database is its own
	// PostgreSQL's idle backends report their counts up to 10 s late (PGSTAT_IDLE_INTERVAL):
	// the start-up's hundreds of transactions must be counted before the window opens.
	const settle, window = 12 * time.Second, 20 * time.Second
	ctx := context.Background()
	idle, err := storetest.New(ctx)
	require.NoError(t, err)
	t.Cleanup(idle.Close)

	bin := serverBinary(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+idle.Server.DSN(idle.Name), "PORT="+strconv.Itoa(freePort(t)),
		"SANDBOX_PSP_PORT="+strconv.Itoa(freePort(t)), "DEMO_PASSWORD=idle-test-password-1", "JOB_WORKERS=2",
		"SMTP_URL=", "FILES_DIR="+t.TempDir(), "APP_ENV=development")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening on ") {
				close(ready)
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not start")
	}

	ended := func() int64 {
		var n int64
		require.NoError(t, idle.Store.DB.GetContext(ctx, &n,
			`SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`))
		return n
	}
	time.Sleep(settle) // the demo data's jobs run and are counted, then nothing is left to do
	// Autovacuum would analyse the tables the demo data just filled, in the window, and
	// its transactions count too: do its work first, so the window holds the server's.
	_, err = idle.Store.DB.ExecContext(ctx, `VACUUM ANALYZE`)
	require.NoError(t, err)
	before := ended()
	time.Sleep(window)
	n := ended() - before
	perSecond := float64(n) / window.Seconds()
	t.Logf("idle server (sandbox PSP, 2 job workers) for %s: %d transactions, %.2f a second", window, n, perSecond)
	require.Less(t, perSecond, 5.0, "an idle server makes next to no transactions")
}
