package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests that start the server as a process (the idle test and the kill tests) share
// one build of it: the build is most of the first such test's time on a cold cache, and
// the idle and submission kill tests run side by side (t.Parallel), each mostly waiting —
// the idle one 32 s on PostgreSQL's statistics, the kill one on the server's restarts.
var server struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// serverBinary builds the server once (without the race detector: it is a process of its
// own, as in production) and returns its path.
func serverBinary(t *testing.T) string {
	t.Helper()
	server.once.Do(func() {
		server.dir, server.err = os.MkdirTemp("", "cardpay-server-test-")
		if server.err != nil {
			return
		}
		server.bin = filepath.Join(server.dir, "server")
		build := exec.Command("go", "build", "-o", server.bin, ".")
		build.Stderr = os.Stderr
		server.err = build.Run()
	})
	require.NoError(t, server.err, "building the server")
	return server.bin
}

// removeServerBinary removes the shared build once the package's tests have run.
func removeServerBinary() {
	if server.dir != "" {
		_ = os.RemoveAll(server.dir)
	}
}
