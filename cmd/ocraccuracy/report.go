package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"cardpay/ocr/invoicegen"
)

type setReport struct {
	Set   invoicegen.Set
	Kinds []kindResult
}

type kindResult struct {
	Kind   invoicegen.Kind
	Docs   int
	Errors int
	Pages  int
	Hits   map[string]int
	// RegistryIssuer counts the issuers named right once the registry answers for the
	// registration number read (invoicefiles.OCR with account.Corporations: the NTA's
	// 法人番号 registry knows every corporation): the name read, or the registered name
	// when the number was read right.
	RegistryIssuer int
	// RegistryHolder counts the holders right once the registry's furigana spelt them
	// (invoiceread.Fields.UseRegisteredIssuer), as the OCR job does.
	RegistryHolder int
	// FilledHits counts the fields right over all checks once the registry named the
	// issuer (not its furigana): what the buyer's form holds.
	FilledHits int
	PageTimes  []time.Duration
	Wall       time.Duration // reading all the kind's files with the workers
	ToolRSSKB  int64
	GoRSSKB    int64
	// The supplier's next invoice (-next): how many were read, the fields read right
	// with the places learned from the first (NextHits) and before they were used
	// (NextBase), and how many places were learned in all.
	NextDocs           int
	NextHits, NextBase map[string]int
	Learned            int
}

// aims are issue 28's targets per field, marked ✗ in the table when missed.
var aims = map[string]float64{"合計金額": 0.95, "支払期日": 0.95, "登録番号": 0.95, "口座名義（カナ）": 0.85}

// overallAim is the aim over all fields.
const overallAim = 0.90

// Page-time aims on image pages (issue 28: median ≤ 3 s, p95 ≤ 8 s with two readings at
// once); a text PDF is read from its text layer and is held to them too.
const p50Aim, p95Aim = 3 * time.Second, 8 * time.Second

func printReport(w io.Writer, reports []setReport, n int, seed int64, workers int, dir string) {
	for _, sr := range reports {
		printSet(w, sr, n, seed, workers)
	}
	fmt.Fprintf(w, "\n✗ = 目標未満：合計金額・支払期日・登録番号 95 %%、口座名義（カナ）85 %%、全項目 %.0f %%；1ページの時間 p50 %s・p95 %s 以下。\n",
		overallAim*100, p50Aim, p95Aim)
	fmt.Fprintf(w, "\n生成したファイルと読み取り結果: %s\n", dir)
}

func setTitle(s invoicegen.Set) string {
	if s == invoicegen.SetHoldout {
		return "holdout（抽出が想定していないレイアウト・文言・書体・劣化）"
	}
	return "generator（抽出の開発に使うレイアウト）"
}

func printSet(w io.Writer, sr setReport, n int, seed int64, workers int) {
	results := sr.Kinds
	fmt.Fprintf(w, "\n## OCR 精度 — %s（完全一致、各種類 %d 件、seed %d）\n\n", setTitle(sr.Set), n, seed)
	fmt.Fprint(w, "| 項目 |")
	for _, r := range results {
		fmt.Fprintf(w, " %s |", r.Kind)
	}
	fmt.Fprint(w, "\n|---|")
	for range results {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, c := range checks {
		fmt.Fprintf(w, "| %s |", c.name)
		for _, r := range results {
			fmt.Fprintf(w, " %s |", pct(r.Hits[c.name], r.Docs, aims[c.name]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| **全項目** |")
	for _, r := range results {
		all := 0
		for _, h := range r.Hits {
			all += h
		}
		fmt.Fprintf(w, " **%s** |", pct(all, r.Docs*len(checks), overallAim))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| **全項目（発行者名は登録から）¹** |")
	for _, r := range results {
		fmt.Fprintf(w, " **%s** |", pct(r.FilledHits, r.Docs*len(checks), overallAim))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| 発行者名（登録番号から法人番号の登録名）¹ |")
	for _, r := range results {
		fmt.Fprintf(w, " %s |", pct(r.RegistryIssuer, r.Docs, 0))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| 口座名義（カナ）（登録名のフリガナで）¹ |")
	for _, r := range results {
		fmt.Fprintf(w, " %s |", pct(r.RegistryHolder, r.Docs, 0))
	}
	fmt.Fprint(w, "\n\n¹ 読み取った登録番号で法人番号の登録名（とフリガナ）を引いたとき（本番の NTA_APP_ID あり、国税庁の法人番号 Web-API はすべての法人を知っている）。検査数字の合わない番号は、1桁を読み違えやすい数字に替えて検査数字の合う読み方を引き、登録名が読んだ発行者名と同じものが1つだけならそれを採る（invoiceread.Fields.ChooseRegistration）。全項目（発行者名は登録から）はこのときの発行者名で数え、口座名義は読んだまま（フリガナで綴らない）。\n")

	if len(results) > 0 && results[0].NextDocs > 0 {
		printNext(w, sr)
	}

	fmt.Fprintf(w, "\n### OCR 時間とメモリ — %s（%d 件ずつ同時に読む）\n\n", sr.Set, workers)
	fmt.Fprint(w, "| 種類 | ページ | 失敗 | 1ページ p50 | p95 | ページ/分 | ツールの最大RSS | Go プロセスの最大RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		p50, p95 := percentile(r.PageTimes, 50), percentile(r.PageTimes, 95)
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s | %s |\n", r.Kind, len(r.PageTimes), r.Errors,
			timeCell(p50, len(r.PageTimes) > 0, p50Aim), timeCell(p95, len(r.PageTimes) > 0, p95Aim),
			rate(pagesPerMinute(r.Pages, r.Wall)), mb(r.ToolRSSKB), mb(r.GoRSSKB))
	}
}

func pct(hits, of int, aim float64) string {
	if of == 0 {
		return "–"
	}
	p := float64(hits) / float64(of)
	mark := ""
	if aim > 0 && p < aim {
		mark = " ✗"
	}
	return fmt.Sprintf("%.0f %%%s", 100*p, mark)
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of ds: the smallest
// duration that at least p % of them do not exceed; 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.SortFunc(s, cmp.Compare)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// pagesPerMinute is the throughput: pages read over the wall-clock time taken to read
// them all (with the workers at once); 0 when nothing was timed.
func pagesPerMinute(pages int, wall time.Duration) float64 {
	if pages == 0 || wall <= 0 {
		return 0
	}
	return float64(pages) / wall.Minutes()
}

func timeCell(d time.Duration, ok bool, aim time.Duration) string {
	if !ok {
		return "–"
	}
	s := d.Round(10 * time.Millisecond).String()
	if d > aim {
		s += " ✗"
	}
	return s
}

func rate(ppm float64) string {
	if ppm == 0 {
		return "–"
	}
	if ppm >= 100 {
		return fmt.Sprintf("%.0f", ppm)
	}
	return fmt.Sprintf("%.1f", ppm)
}

func mb(kb int64) string {
	if kb == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MB", float64(kb)/1024)
}

// nextFields are the fields a supplier's learned places guide.
var nextFields = []string{"合計金額", "支払期日", "請求日"}

// printNext prints the next invoices' table: per kind, each guided field and all fields
// read right before the learned places were used → after.
func printNext(w io.Writer, sr setReport) {
	fmt.Fprintf(w, "\n### 同じ取引先の次の請求書 — %s（前回の支払いの金額・日付の位置から読み直す前 → 後）\n\n", sr.Set)
	fmt.Fprint(w, "| 項目 |")
	for _, r := range sr.Kinds {
		fmt.Fprintf(w, " %s |", r.Kind)
	}
	fmt.Fprint(w, "\n|---|")
	for range sr.Kinds {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, name := range nextFields {
		fmt.Fprintf(w, "| %s |", name)
		for _, r := range sr.Kinds {
			fmt.Fprintf(w, " %s → %s |", pct(r.NextBase[name], r.NextDocs, 0), pct(r.NextHits[name], r.NextDocs, aims[name]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| **全項目** |")
	for _, r := range sr.Kinds {
		base, hits := 0, 0
		for _, c := range checks {
			base += r.NextBase[c.name]
			hits += r.NextHits[c.name]
		}
		fmt.Fprintf(w, " **%s → %s** |", pct(base, r.NextDocs*len(checks), 0), pct(hits, r.NextDocs*len(checks), overallAim))
	}
	fmt.Fprint(w, "\n| 学習した位置（件） |")
	for _, r := range sr.Kinds {
		fmt.Fprintf(w, " %d |", r.Learned)
	}
	fmt.Fprintln(w)
}
