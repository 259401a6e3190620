package files_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/stretchr/testify/require"

	"cardpay/files"
)

// The S3 backend is tested against a real S3-compatible server: the Versity S3
// Gateway (github.com/versity/versitygw, posix backend over a temporary
// folder), installed into bin/ by `task s3-server`. MinIO's server does not
// build from the Go module proxy in reasonable time and Debian has no package
// for it; versitygw speaks the same S3 API that minio-go uses.
const s3ServerTask = "go tool -modfile=tools/go.mod task s3-server"

func s3ServerPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("S3_SERVER"); p != "" {
		return p
	}
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "bin", "versitygw")
}

// startS3 runs the server on a free local port for the test and returns a
// connected S3 store on a fresh bucket.
func startS3(t *testing.T) (*files.S3, files.S3Config) {
	t.Helper()
	bin := s3ServerPath(t)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the S3-compatible test server is missing (%s): run `%s` (or set S3_SERVER to a versitygw binary)", bin, s3ServerTask)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	const access, secret = "cardpay-test", "cardpay-test-secret-key"
	var out bytes.Buffer
	cmd := exec.Command(bin, "--access", access, "--secret", secret, "--port", addr, "--quiet", "posix", t.TempDir())
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	cfg := files.S3Config{Endpoint: addr, Bucket: "invoices-test", AccessKey: access, SecretKey: secret}
	// Wait for the server to answer: poll until it does, or until it exits.
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := files.NewS3(ctx, cfg)
		cancel()
		if err == nil {
			return st, cfg
		}
		select {
		case werr := <-exited:
			exited <- werr
			t.Fatalf("%s exited: %v\n%s", bin, werr, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer at %s: %v\n%s", bin, addr, err, out.String())
		}
	}
}

func TestS3(t *testing.T) {
	st, cfg := startS3(t)
	storeContract(t, st)

	t.Run("objects keep their media type and are marked as downloads", func(t *testing.T) {
		ctx := context.Background()
		key := files.NewKey(time.Now())
		require.NoError(t, st.Put(ctx, key, bytes.NewReader([]byte("%PDF-1.4")), 8, "application/pdf"))
		info, err := st.Client.StatObject(ctx, st.Bucket, key, minio.StatObjectOptions{})
		require.NoError(t, err)
		require.Equal(t, "application/pdf", info.ContentType)
		require.Equal(t, int64(8), info.Size)
	})

	t.Run("a second app instance sees the first one's files", func(t *testing.T) {
		ctx := context.Background()
		key := files.NewKey(time.Now())
		require.NoError(t, st.Put(ctx, key, bytes.NewReader([]byte("shared")), 6, "image/png"))
		other, err := files.NewS3(ctx, cfg) // its own client, as in another process
		require.NoError(t, err)
		rc, err := other.Open(ctx, key)
		require.NoError(t, err)
		defer rc.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(rc)
		require.NoError(t, err)
		require.Equal(t, "shared", b.String())
	})
}

func TestNewS3NeedsEndpointAndBucket(t *testing.T) {
	_, err := files.NewS3(context.Background(), files.S3Config{Bucket: "b"})
	require.Error(t, err)
	_, err = files.NewS3(context.Background(), files.S3Config{Endpoint: "127.0.0.1:1"})
	require.Error(t, err)
}
