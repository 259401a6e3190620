// Command ocraccuracy measures the invoice OCR (task ocr:accuracy): it generates
// invoices with known fields (ocr/invoicegen) as text PDFs, scanned PDFs, clean images,
// faxes and phone photos, reads each with ocr.Reader and invoiceread.Extract as the
// OCR job does, and prints in Markdown, for each set of invoices, the exact-match
// accuracy per field and kind and, per kind, the OCR time per page (p50, p95) and the
// pages read a minute with -workers readings at once (the app's two OCR workers), and
// the memory used.
//
// Two sets are measured and reported apart: the generator's (the layouts invoiceread
// was written against) and the holdout (invoicegen.NewHoldout and HoldoutLayouts:
// other layouts, wordings, fonts and degradations, kept out of the tuning loop). It
// prints figures and never fails on them: the aims of issue 28 (≥ 95 % on the total, the
// due date and the registration number, ≥ 85 % on the holder's kana, ≥ 90 % over all
// fields) are marked ✗ when missed, not enforced.
//
// The generated files and each one's truth and reading are written under -out, so a
// miss can be looked at; they are not committed (.data/ is ignored).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cardpay/invoicefiles"
	"cardpay/invoiceread"
	"cardpay/ocr"
	"cardpay/ocr/invoicegen"
)

func main() {
	n := flag.Int("n", 20, "invoices per kind and set")
	seed := flag.Int64("seed", 1, "generator seed (the same seed makes the same invoices)")
	kindsFlag := flag.String("kinds", "", "comma-separated kinds (default all: "+kindList()+")")
	setFlag := flag.String("set", "both", "which invoices: generator, holdout or both")
	workers := flag.Int("workers", 2, "files read at once (the app runs two OCR workers)")
	out := flag.String("out", ".data/ocr-accuracy", "folder for the generated files and readings (\"\" = a temp dir, removed)")
	timeout := flag.Duration("timeout", 3*time.Minute, "OCR timeout per file")
	verbose := flag.Bool("v", false, "print each miss")
	crops := flag.Bool("crops", true, "read unsure fields again from their crops, as the app does (false: the page's reading alone)")
	next := flag.Bool("next", false, "also read each supplier's next invoice (same layout, other amount and dates) with the places learned from the first (invoiceread.Learn), and print how many of its fields were read with and without them")
	flag.Parse()

	kinds := invoicegen.Kinds
	if *kindsFlag != "" {
		kinds = nil
		for k := range strings.SplitSeq(*kindsFlag, ",") {
			kinds = append(kinds, invoicegen.Kind(strings.TrimSpace(k)))
		}
	}
	sets := invoicegen.Sets
	if *setFlag != "both" {
		s, err := invoicegen.ParseSet(*setFlag)
		if err != nil {
			fail(err)
		}
		sets = []invoicegen.Set{s}
	}
	if *workers < 1 {
		fail(fmt.Errorf("-workers %d: at least 1", *workers))
	}
	if err := ocr.Available(); err != nil {
		fail(err)
	}
	dir := *out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ocr-accuracy-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	m := &measure{
		reader:  &ocr.Reader{Timeout: *timeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		crops:   *crops,
		next:    *next,
		n:       *n,
		seed:    *seed,
		workers: *workers,
		verbose: *verbose,
	}
	ctx := context.Background()
	var reports []setReport
	for _, set := range sets {
		sr := setReport{Set: set}
		for _, kind := range kinds {
			sr.Kinds = append(sr.Kinds, m.kind(ctx, set, kind, filepath.Join(dir, string(set), string(kind))))
		}
		reports = append(reports, sr)
	}
	printReport(os.Stdout, reports, *n, *seed, *workers, dir)
}

type measure struct {
	reader  *ocr.Reader
	crops   bool
	next    bool
	n       int
	seed    int64
	workers int
	verbose bool
}

// job is one generated file to read.
type job struct {
	truth  invoicegen.Truth
	layout invoicegen.Layout
	doc    invoicegen.Doc
	base   string // path without the extension
}

type reading struct {
	res    ocr.Result
	err    error
	fields invoiceread.Fields
	// base is what was read before the supplier's learned places were used; lines are
	// the reading's lines, to learn from.
	base  invoiceread.Fields
	lines []invoiceread.Line
	// crops is the time the fields read again from their crops took (invoicefiles.ReadFields).
	crops time.Duration
}

// kind generates the set's n invoices of one kind, then reads them with m.workers
// readers at once, timing the reading alone (the generation's image work would
// otherwise compete with the OCR for the cores).
func (m *measure) kind(ctx context.Context, set invoicegen.Set, kind invoicegen.Kind, kdir string) kindResult {
	// One generator per kind, from the same seed: every kind reads the same invoices.
	g := set.New(m.seed)
	layouts := set.Layouts()
	must(os.MkdirAll(kdir, 0o755))
	jobs := make([]job, m.n)
	for i := range jobs {
		truth := g.Invoice()
		layout := layouts[i%len(layouts)]
		doc, err := g.Render(ctx, truth, layout, kind)
		if err != nil {
			fail(fmt.Errorf("%s %s #%d: %w", set, kind, i+1, err))
		}
		base := filepath.Join(kdir, fmt.Sprintf("%03d-%s", i+1, layout))
		must(os.WriteFile(base+doc.Ext, doc.Bytes, 0o644))
		jobs[i] = job{truth: truth, layout: layout, doc: doc, base: base}
	}

	start := time.Now()
	readings := m.readAll(ctx, jobs, nil)
	wall := time.Since(start)

	kr := kindResult{Kind: kind, Hits: map[string]int{}, Wall: wall}
	for i, j := range jobs {
		kr.Docs++
		res, err := readings[i].res, readings[i].err
		rec := record{Set: string(set), Truth: j.truth, Layout: j.layout.String()}
		if err != nil {
			kr.Errors++
			rec.Error = err.Error()
			fmt.Fprintf(os.Stderr, "%s %s #%d: OCR failed: %v\n", set, kind, i+1, err)
		} else {
			kr.Pages += res.Pages
			// A page's time is the app's: its reading, and its share of the crops read again.
			for _, ps := range res.PageStats {
				kr.PageTimes = append(kr.PageTimes, ps.Duration+readings[i].crops/time.Duration(len(res.PageStats)))
			}
			if len(res.PageStats) == 0 && res.Pages > 0 {
				for range res.Pages {
					kr.PageTimes = append(kr.PageTimes, res.Duration/time.Duration(res.Pages))
				}
			}
			kr.ToolRSSKB = max(kr.ToolRSSKB, res.MaxRSSKB)
			kr.GoRSSKB = max(kr.GoRSSKB, res.GoMaxRSSKB)
			rec.Text = res.Text
			rec.Fields = &readings[i].fields
		}
		if rec.Fields != nil {
			// The registry names the issuer when the number was read right, as the OCR job
			// does with account.Corporations; otherwise the name read stands.
			fs := fieldsOf(rec.Fields)
			_, issuerRead := checkNamed("発行者名").check(rec.Fields, j.truth)
			// The registry knows the issuer's corporation (the NTA knows every one); asked
			// about a number read a digit wrong, it answers for the readings that are the
			// issuer's number (invoiceread.Fields.ChooseRegistration).
			// It answers whether the registry named the issuer.
			useRegistry := func(f *invoiceread.Fields, kana string) bool {
				if f.RegistrationNumber.Found && f.RegistrationNumber.Value == j.truth.RegistrationNumber {
					f.UseRegisteredIssuer(j.truth.IssuerName, kana)
					return true
				}
				return f.ChooseRegistration(func(number string) (string, string, bool) {
					return j.truth.IssuerName, kana, "T"+number == j.truth.RegistrationNumber
				})
			}
			registered := *fs
			if useRegistry(&registered, j.truth.IssuerKana) {
				issuerRead = true
			}
			if issuerRead {
				kr.RegistryIssuer++
			}
			if _, ok := checkNamed("口座名義（カナ）").check(&registered, j.truth); ok {
				kr.RegistryHolder++
			}
			// All fields as the OCR job fills them when the registry answers: the issuer's
			// registered name, without its furigana (the holder as read, or as the name's
			// legal form marks it).
			filled := *fs
			useRegistry(&filled, "")
			for _, c := range checks {
				if _, ok := c.check(&filled, j.truth); ok {
					kr.FilledHits++
				}
			}
		}
		for _, c := range checks {
			got, ok := "（読めず）", false
			if rec.Fields != nil {
				got, ok = c.check(rec.Fields, j.truth)
			}
			if ok {
				kr.Hits[c.name]++
			} else {
				rec.Misses = append(rec.Misses, fmt.Sprintf("%s: 正 %q 読 %q", c.name, c.want(j.truth), got))
				if m.verbose {
					fmt.Fprintf(os.Stderr, "%s %s %s: %s: want %q got %q\n", set, kind, filepath.Base(j.base), c.name, c.want(j.truth), got)
				}
			}
		}
		b, _ := json.MarshalIndent(rec, "", "  ")
		must(os.WriteFile(j.base+".json", b, 0o644))
	}
	fmt.Fprintf(os.Stderr, "%s %s: %d files read in %s\n", set, kind, kr.Docs, wall.Round(100*time.Millisecond))
	if m.next {
		m.nextInvoices(ctx, set, kind, jobs, readings, &kr)
	}
	return kr
}

// readAll reads the jobs with m.workers readers at once; places[i] (nil: none) are the
// places job i's supplier taught.
func (m *measure) readAll(ctx context.Context, jobs []job, places [][]invoiceread.Place) []reading {
	readings := make([]reading, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range m.workers {
		wg.Go(func() {
			for i := range next {
				rd, err := m.reader.Open(ctx, jobs[i].doc.MediaType, jobs[i].doc.Bytes)
				if err != nil {
					readings[i] = reading{err: err}
					continue
				}
				var ps []invoiceread.Place
				if places != nil {
					ps = places[i]
				}
				t0 := time.Now()
				f, base := extract(ctx, rd, m.crops, ps)
				readings[i] = reading{res: rd.Result, fields: f, base: base, lines: invoicefiles.Lines(rd.Lines), crops: time.Since(t0)}
				rd.Close()
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return readings
}

// nextInvoices measures learning per supplier: each first invoice's supplier is paid with
// the true amount and dates (as a buyer who corrected the reading would), its places are
// learned from the first reading (invoiceread.Learn, as the payment does), and the
// supplier's next invoice (invoicegen.Next: the same layout and forms, a month later,
// another total) is read with them. Both readings of the next invoice are counted: before
// the places were used and after.
func (m *measure) nextInvoices(ctx context.Context, set invoicegen.Set, kind invoicegen.Kind, first []job, firstRead []reading, kr *kindResult) {
	// Their own generator, so that the first invoices are the same with -next or without.
	g := set.New(m.seed + 1_000_003)
	jobs := make([]job, len(first))
	places := make([][]invoiceread.Place, len(first))
	for i, j := range first {
		truth := g.Next(j.truth)
		doc, err := g.Render(ctx, truth, j.layout, kind)
		if err != nil {
			fail(fmt.Errorf("%s %s #%d next: %w", set, kind, i+1, err))
		}
		base := j.base + "-next"
		must(os.WriteFile(base+doc.Ext, doc.Bytes, 0o644))
		jobs[i] = job{truth: truth, layout: j.layout, doc: doc, base: base}
		if firstRead[i].err == nil {
			places[i] = invoiceread.Learn(firstRead[i].lines, invoiceread.Known{
				Total: j.truth.Total, InvoiceDate: j.truth.InvoiceDate, DueDate: j.truth.DueDate})
			kr.Learned += len(places[i])
		}
	}
	readings := m.readAll(ctx, jobs, places)
	kr.NextHits, kr.NextBase = map[string]int{}, map[string]int{}
	for i, j := range jobs {
		kr.NextDocs++
		rd := readings[i]
		rec := record{Set: string(set), Truth: j.truth, Layout: j.layout.String(), Places: places[i]}
		if rd.err != nil {
			rec.Error = rd.err.Error()
		} else {
			rec.Text, rec.Fields, rec.Base = rd.res.Text, &rd.fields, &rd.base
			for _, c := range checks {
				if _, ok := c.check(&rd.base, j.truth); ok {
					kr.NextBase[c.name]++
				}
				got, ok := c.check(&rd.fields, j.truth)
				if ok {
					kr.NextHits[c.name]++
				} else {
					rec.Misses = append(rec.Misses, fmt.Sprintf("%s: 正 %q 読 %q", c.name, c.want(j.truth), got))
				}
			}
		}
		b, _ := json.MarshalIndent(rec, "", "  ")
		must(os.WriteFile(j.base+".json", b, 0o644))
	}
}

type record struct {
	Set    string
	Layout string
	Truth  invoicegen.Truth
	Error  string `json:",omitempty"`
	Text   string
	Fields any
	// Base and Places: a next invoice's reading before its supplier's places were used,
	// and those places.
	Base   any                 `json:",omitempty"`
	Places []invoiceread.Place `json:",omitempty"`
	Misses []string
}

func kindList() string {
	var s []string
	for _, k := range invoicegen.Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ",")
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ocraccuracy:", err)
	os.Exit(1)
}
