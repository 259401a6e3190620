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
	// The CPU of the app and of PostgreSQL during the fixed-rate run, per request answered
	// (new backends started meanwhile are not counted: the pool keeps its connections).
	app, pg := serverPIDs(), postgresPIDs()
	app0, pg0 := ticks(app), ticks(pg)
	fixed := attack(targeter, fixedRate, fixedFor)
	app1, pg1 := ticks(app), ticks(pg)

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
	if fixed.Requests > 0 && len(app) > 0 {
		per := func(t int64) float64 { return float64(t) * 1000 / userHZ / float64(fixed.Requests) }
		fmt.Printf("CPU per request at %d req/s: app %.2f ms, PostgreSQL %.2f ms, together %.2f ms\n",
			fixedRate, per(app1-app0), per(pg1-pg0), per(app1-app0+pg1-pg0))
	}
	if base2 := strings.TrimRight(os.Getenv("BASE_URL2"), "/"); base2 != "" {
		return scaleOut(base, base2, password, row)
	}
	return nil
}

// scaleOut runs the same steps with the load split between two instances on one
// database (each request to one of them, in turn), and prints the combined figure.
func scaleOut(base, base2, password string, row func(int, *vegeta.Metrics)) error {
	cookie2, err := signIn(base2, password)
	if err != nil {
		return err
	}
	cookie1, err := signIn(base, password)
	if err != nil {
		return err
	}
	var targets []vegeta.Target
	for _, p := range []string{"", "", "", "", "", "", "", "?page=2", "?page=10", "?page=40"} {
		targets = append(targets,
			vegeta.Target{Method: http.MethodGet, URL: base + historyPath + p, Header: http.Header{"Cookie": {cookie1}}},
			vegeta.Target{Method: http.MethodGet, URL: base2 + historyPath + p, Header: http.Header{"Cookie": {cookie2}}})
	}
	targeter := vegeta.NewStaticTargeter(targets...)
	fmt.Printf("\nTwo instances on one database, the load split between them:\n\n")
	fmt.Println("| rate asked (req/s) | throughput (req/s) | success | p50 | p95 | p99 | max | bytes/answer |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	attack(targeter, 200, 3*time.Second)
	best := 0.0
	for _, rate := range steps {
		m := attack(targeter, rate, stepFor)
		row(rate, m)
		if m.Success < 1 || m.Throughput < 0.9*float64(rate) || m.Latencies.P99 > time.Second {
			break
		}
		best = max(best, m.Throughput)
	}
	fmt.Printf("\ntwo instances, requests per second at saturation: %.0f (all processes share this machine's %d CPUs)\n", best, runtime.NumCPU())
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
