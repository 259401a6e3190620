package ocr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// minTextRunes is how many non-space characters a page's text layer needs to be trusted;
// scanners often put a stray page number or a producer line on an image-only page.
const minTextRunes = 16

// readPDF reads the text layer page by page and sends the pages without one (scans,
// faxes printed to PDF) through pdftoppm and tesseract.
func (r *Reader) readPDF(ctx context.Context, dir string, b []byte) (Result, error) {
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		return Result{}, fmt.Errorf("ocr: %w", err)
	}
	t0 := time.Now()
	out, err := r.run(ctx, dir, nil, "pdftotext", "-layout", "-enc", "UTF-8", "-l", strconv.Itoa(MaxPages), "in.pdf", "-")
	if err != nil {
		return Result{}, err
	}
	textTime := time.Since(t0)
	// pdftotext ends every page with a form feed.
	pages := strings.Split(strings.TrimSuffix(string(out.stdout), "\f"), "\f")
	if len(pages) > MaxPages {
		pages = pages[:MaxPages]
	}
	res := Result{Source: SourcePDFText, Pages: len(pages)}
	texts := make([]string, len(pages))
	for i, p := range pages {
		n := i + 1
		if countText(p) >= minTextRunes {
			texts[i] = cleanLayout(p)
			for l := range strings.SplitSeq(texts[i], "\n") {
				if strings.TrimSpace(l) != "" {
					res.Lines = append(res.Lines, Line{Text: l, Confidence: 1, Page: n})
				}
			}
			res.PageStats = append(res.PageStats, PageStat{Page: n, Source: SourcePDFText,
				Duration: textTime / time.Duration(len(pages)), MaxRSSKB: out.maxRSSKB})
			continue
		}
		res.Source = SourceTesseract
		pt := time.Now()
		prefix := fmt.Sprintf("page%02d", n)
		ras, err := r.run(ctx, dir, nil, "pdftoppm", "-r", "300", "-gray", "-png", "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), "-singlefile", "in.pdf", prefix)
		if err != nil {
			return Result{}, err
		}
		png, err := os.ReadFile(filepath.Join(dir, prefix+".png"))
		if err != nil {
			return Result{}, fmt.Errorf("ocr: pdftoppm wrote no page %d: %w", n, err)
		}
		img, err := decodeImage(png)
		if err != nil {
			return Result{}, fmt.Errorf("ocr: page %d: %w", n, err)
		}
		pr, err := r.ocrImage(ctx, dir, img, n, 300)
		if err != nil {
			return Result{}, err
		}
		texts[i] = pr.text
		res.Lines = append(res.Lines, pr.lines...)
		pr.stat.MaxRSSKB = max(pr.stat.MaxRSSKB, ras.maxRSSKB)
		pr.stat.Duration = time.Since(pt)
		res.PageStats = append(res.PageStats, pr.stat)
		r.logger().Debug("ocr: page", "page", n, "ms", pr.stat.Duration.Milliseconds(), "rotation", pr.stat.Rotation, "skew", pr.stat.Skew)
	}
	res.Text = strings.Join(texts, "\f")
	return res, nil
}

func countText(s string) int {
	n := 0
	for _, c := range s {
		if !unicode.IsSpace(c) {
			n++
		}
	}
	return n
}

// cleanLayout drops trailing spaces and runs of blank lines, keeping the columns that
// -layout lines up (labels and their values stay on one line).
func cleanLayout(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRightFunc(l, unicode.IsSpace)
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}
