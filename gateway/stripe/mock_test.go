package stripe

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests run the stripe-mock binary (pinned in Taskfile.yml's stripe-mock task), one
// process for the whole package on free ports, stopped by TestMain.

const installHint = "run `go tool -modfile=tools/go.mod task stripe-mock` to install it into bin/stripe-mock (or set STRIPE_MOCK to its path)"

var sharedMock struct {
	once sync.Once
	url  string
	stop func()
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedMock.stop != nil {
		sharedMock.stop()
	}
	os.Exit(code)
}

// stripeMockURL is the base URL of the package's stripe-mock; the test fails when the
// binary is missing.
func stripeMockURL(t *testing.T) string {
	t.Helper()
	sharedMock.once.Do(func() {
		sharedMock.url, sharedMock.stop, sharedMock.err = startStripeMock()
	})
	if sharedMock.err != nil {
		t.Fatalf("stripe-mock: %v", sharedMock.err)
	}
	return sharedMock.url
}

// stripeMockBinary finds stripe-mock: $STRIPE_MOCK, else <repo>/bin/stripe-mock, else PATH.
func stripeMockBinary() (string, error) {
	if p := os.Getenv("STRIPE_MOCK"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("STRIPE_MOCK=%s: %w; %s", p, err, installHint)
		}
		return p, nil
	}
	if root, err := repoRoot(); err == nil {
		p := filepath.Join(root, "bin", "stripe-mock")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p, nil
	}
	return "", errors.New("the stripe-mock binary is not installed: " + installHint)
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

var listeningRE = regexp.MustCompile(`Listening for HTTP at address: (\S+)`)

// startStripeMock starts stripe-mock on free loopback ports (HTTPS too, or it would take
// the fixed 12112) and answers its HTTP base URL once it listens.
func startStripeMock(args ...string) (string, func(), error) {
	bin, err := stripeMockBinary()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, append([]string{"-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0"}, args...)...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		_ = pw.Close()
		exited <- err
	}()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	found := make(chan string, 1)
	var out strings.Builder
	var outMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			outMu.Lock()
			if out.Len() < 4096 {
				out.WriteString(sc.Text() + "\n")
			}
			outMu.Unlock()
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case addr := <-found:
		return "http://" + addr, stop, nil
	case err := <-exited:
		outMu.Lock()
		defer outMu.Unlock()
		return "", nil, fmt.Errorf("%s exited (%v); it said:\n%s", bin, err, out.String())
	case <-time.After(60 * time.Second):
		stop()
		outMu.Lock()
		defer outMu.Unlock()
		return "", nil, fmt.Errorf("%s did not start listening within a minute; it said:\n%s", bin, out.String())
	}
}
