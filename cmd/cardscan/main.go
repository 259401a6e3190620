// Command cardscan checks the card data rule after a test run: no card number is ever
// stored or logged. It dumps a database with pg_dump and reads log files, and fails when
// any of them holds a Luhn-valid 13–19-digit number (pay.FindCardNumbers). It reports
// where, with the number masked, so that its own output leaks nothing.
//
//	cardscan [-database cardpay_e2e] [file ...]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cardpay/pay"
	"cardpay/store/devdb"
)

func main() {
	database := flag.String("database", "", "a database on the development server to dump with pg_dump (as the server finds it: DATABASE_URL or devdb)")
	flag.Parse()
	findings, scanned, err := run(*database, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "cardscan:", err)
		os.Exit(2)
	}
	for _, f := range findings {
		fmt.Println("cardscan: " + f)
	}
	if len(findings) > 0 {
		fmt.Printf("cardscan: FAILED: %d card number(s) in %s\n", len(findings), strings.Join(scanned, ", "))
		os.Exit(1)
	}
	fmt.Printf("cardscan: no card numbers in %s\n", strings.Join(scanned, ", "))
}

func run(database string, files []string) (findings, scanned []string, err error) {
	if database != "" {
		dump, err := pgDump(database)
		if err != nil {
			return nil, nil, err
		}
		findings = append(findings, scan("pg_dump of "+database, dump)...)
		scanned = append(scanned, fmt.Sprintf("pg_dump of %s (%d bytes)", database, len(dump)))
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		findings = append(findings, scan(name, b)...)
		scanned = append(scanned, fmt.Sprintf("%s (%d bytes)", filepath.Base(name), len(b)))
	}
	if len(scanned) == 0 {
		return nil, nil, fmt.Errorf("nothing to scan: give -database and/or files")
	}
	return findings, scanned, nil
}

// scan reports each card number in b as "where:line: masked".
func scan(where string, b []byte) []string {
	var out []string
	for i, line := range bytes.Split(b, []byte("\n")) {
		for _, f := range pay.FindCardNumbers(string(line)) {
			out = append(out, fmt.Sprintf("%s:%d: a %d-digit card number %s", where, i+1, f.Length, f.Masked))
		}
	}
	return out
}

func pgDump(database string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := devdb.Locate(ctx, devdb.Options{})
	if err != nil {
		return nil, err
	}
	bin, err := devdb.Tool("pg_dump")
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--no-owner", "--no-privileges", "-d", srv.DSN(database))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("pg_dump %s: %w: %s", database, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
