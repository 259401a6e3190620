package ocr

import (
	"context"
	"fmt"
	"image"
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
		img, dpi, rss, err := r.scannedPage(ctx, dir, n)
		if err != nil {
			return Result{}, err
		}
		pr, err := r.ocrImage(ctx, dir, img, n, dpi)
		if err != nil {
			return Result{}, err
		}
		ras := runOut{maxRSSKB: rss}
		texts[i] = pr.text
		res.Lines = append(res.Lines, pr.lines...)
		if res.images == nil {
			res.images = map[int]string{}
		}
		res.images[n] = pr.image
		if pr.grey != "" {
			if res.greys == nil {
				res.greys = map[int]string{}
			}
			res.greys[n] = pr.grey
		}
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

// scannedPage answers page n of in.pdf as an image, with its resolution when it is
// known (0 when the clean-up should judge it from the text). A scanner's PDF holds one
// image per page: pdfimages takes it out as it is, in a few milliseconds, where
// pdftoppm resamples it to 300 DPI for half a minute on a small machine. Any other page
// (drawings, several images, no pdfimages) is rendered by pdftoppm at 300 DPI.
func (r *Reader) scannedPage(ctx context.Context, dir string, n int) (image.Image, int, int64, error) {
	page := strconv.Itoa(n)
	if list, err := r.run(ctx, dir, nil, "pdfimages", "-list", "-f", page, "-l", page, "in.pdf"); err == nil && singleScan(list.stdout) {
		prefix := fmt.Sprintf("scan%02d", n)
		// -all writes each image as it is stored: a scanner's JPEG comes out as the JPEG
		// it is, where -png re-encoded it (2 of a scanned page's 5 seconds).
		out, err := r.run(ctx, dir, nil, "pdfimages", "-all", "-f", page, "-l", page, "in.pdf", prefix)
		if err == nil {
			for _, ext := range []string{".jpg", ".png"} {
				b, err := os.ReadFile(filepath.Join(dir, prefix+"-000"+ext))
				if err != nil {
					continue
				}
				if img, err := decodeImage(b); err == nil {
					return img, 0, max(list.maxRSSKB, out.maxRSSKB), nil
				}
			}
		}
	} else if ctx.Err() != nil {
		return nil, 0, 0, ctx.Err()
	}
	prefix := fmt.Sprintf("page%02d", n)
	ras, err := r.run(ctx, dir, nil, "pdftoppm", "-r", "300", "-gray", "-png", "-f", page, "-l", page, "-singlefile", "in.pdf", prefix)
	if err != nil {
		return nil, 0, 0, err
	}
	b, err := os.ReadFile(filepath.Join(dir, prefix+".png"))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("ocr: pdftoppm wrote no page %d: %w", n, err)
	}
	img, err := decodeImage(b)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("ocr: page %d: %w", n, err)
	}
	return img, 300, ras.maxRSSKB, nil
}

// singleScan says whether pdfimages -list shows one image on the page, of a scanner's
// resolution (100–600 ppi) and at most MaxPixels: a scanned page, not a logo on a drawn one.
func singleScan(list []byte) bool {
	images := 0
	ok := false
	for l := range strings.SplitSeq(string(list), "\n") {
		f := strings.Fields(l)
		// page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
		if len(f) < 14 || f[2] == "type" || !allDigits(f[0]) {
			continue
		}
		if f[2] != "image" {
			continue // smask, stencil: parts of another image
		}
		images++
		ppi, err := strconv.Atoi(f[12])
		w, errW := strconv.Atoi(f[3])
		h, errH := strconv.Atoi(f[4])
		// An image over MaxPixels would be written out whole by pdfimages only for
		// decodeImage to refuse it: pdftoppm draws the page at a size the upload check
		// bounded instead.
		ok = err == nil && ppi >= 100 && ppi <= 600 && errW == nil && errH == nil && int64(w)*int64(h) <= MaxPixels
	}
	return images == 1 && ok
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
