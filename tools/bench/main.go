// Command bench measures the signed-in payment history page (/payments/history, 20 a page,
// with the tab counts) under load with vegeta, as `task bench` runs it (tools/bench.sh
// starts the server, seeds 2,000 payments and passes BASE_URL and DEMO_PASSWORD). It
// prints figures and never fails on them: only on errors (no server, no sign-in).
package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

const (
	fixedRate   = 500
	fixedFor    = 10 * time.Second
	stepFor     = 5 * time.Second
	aimRate     = 1000
	aimP99      = 20 * time.Millisecond
	historyPath = "/payments/history"
)

var steps = []int{100, 200, 300, 400, 500, 750, 1000, 1250, 1500, 2000}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run() error {
	base := strings.TrimRight(os.Getenv("BASE_URL"), "/")
	password := os.Getenv("DEMO_PASSWORD")
	if base == "" || password == "" {
		return fmt.Errorf("BASE_URL and DEMO_PASSWORD must be set (run it through tools/bench.sh)")
	}
	cookie, err := signIn(base, password)
	if err != nil {
		return err
	}
	header := http.Header{"Cookie": {cookie}}
	// Page 1 mostly, and a few deeper pages, as people page through their history.
	var targets []vegeta.Target
	for _, p := range []string{"", "", "", "", "", "", "", "?page=2", "?page=10", "?page=40"} {
		targets = append(targets, vegeta.Target{Method: http.MethodGet, URL: base + historyPath + p, Header: header})
	}
	targeter := vegeta.NewStaticTargeter(targets...)

	fmt.Printf("Load bench: GET %s signed in as the demo corporation (2,000 seeded payments; 20 a page, with the tab counts).\n", historyPath)
	fmt.Printf("The load generator and the server share this machine's %d CPUs, so the figures are a floor.\n\n", runtime.NumCPU())

	attack(targeter, 200, 3*time.Second) // warm-up: connections, caches, the planner
	fixed := attack(targeter, fixedRate, fixedFor)

	fmt.Println("| rate asked (req/s) | throughput (req/s) | success | p50 | p95 | p99 | max | bytes/answer |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	row := func(rate int, m *vegeta.Metrics) {
		fmt.Printf("| %d | %.0f | %.1f %% | %s | %s | %s | %s | %.0f |\n", rate, m.Throughput, 100*m.Success,
			ms(m.Latencies.P50), ms(m.Latencies.P95), ms(m.Latencies.P99), ms(m.Latencies.Max), m.BytesIn.Mean)
	}
	row(fixedRate, fixed)
	best := 0.0
	for _, rate := range steps {
		m := attack(targeter, rate, stepFor)
		row(rate, m)
		if m.Success < 1 || m.Throughput < 0.9*float64(rate) || m.Latencies.P99 > time.Second {
			fmt.Printf("\n(stopped stepping at %d req/s: the server no longer kept up)\n", rate)
			break
		}
		best = max(best, m.Throughput)
	}
	fmt.Println()
	fmt.Printf("fixed %d req/s for %s: %.1f %% answered 200 within 5 s, p50 %s, p99 %s (aim p99 ≤ %s: %s)\n", fixedRate, fixedFor,
		100*fixed.Success, ms(fixed.Latencies.P50), ms(fixed.Latencies.P99), ms(aimP99), verdict(fixed.Success == 1 && fixed.Latencies.P99 <= aimP99))
	fmt.Printf("requests per second at saturation (highest throughput with every answer 200): %.0f (aim ≥ %d: %s)\n",
		best, aimRate, verdict(best >= aimRate))
	return nil
}

// attack runs one fixed-rate attack; a vegeta Attacker stops for good after one.
func attack(t vegeta.Targeter, rate int, d time.Duration) *vegeta.Metrics {
	a := vegeta.NewAttacker(vegeta.Timeout(5*time.Second), vegeta.KeepAlive(true), vegeta.Connections(64), vegeta.Redirects(vegeta.NoFollow))
	var m vegeta.Metrics
	for res := range a.Attack(t, vegeta.Rate{Freq: rate, Per: time.Second}, d, fmt.Sprintf("%d/s", rate)) {
		m.Add(res)
	}
	m.Close()
	return &m
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

// signIn signs in as the demo corporation through the sign-in form and answers the
// session cookie.
func signIn(base, password string) (string, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"email_address": {"corp@demo.example"}, "password": {password}}
	req, _ := http.NewRequest(http.MethodPost, base+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("sign in: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("sign in answered %d", res.StatusCode)
	}
	u, _ := url.Parse(base)
	var parts []string
	for _, ck := range jar.Cookies(u) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	res, err = c.Get(base + historyPath)
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "支払履歴") {
		return "", fmt.Errorf("GET %s answered %d", historyPath, res.StatusCode)
	}
	return strings.Join(parts, "; "), nil
}
