package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// osdMinConfidence is the orientation confidence below which tesseract's OSD is not
// trusted (its own documentation treats values under about 2 as guesses).
const osdMinConfidence = 2.0

type pageResult struct {
	text  string
	lines []Line
	stat  PageStat
	score float64 // confident characters: how well the page read, to compare orientations
}

// readImageFile reads one uploaded image as page 1.
func (r *Reader) readImageFile(ctx context.Context, dir string, b []byte) (Result, error) {
	t0 := time.Now()
	img, err := decodeImage(b)
	if err != nil {
		return Result{}, err
	}
	pr, err := r.ocrImage(ctx, dir, img, 1, 0)
	if err != nil {
		return Result{}, err
	}
	pr.stat.Duration = time.Since(t0)
	r.logger().Debug("ocr: page", "page", 1, "ms", pr.stat.Duration.Milliseconds(), "rotation", pr.stat.Rotation, "skew", pr.stat.Skew, "vertical", pr.stat.Vertical)
	return Result{Text: pr.text, Source: SourceTesseract, Pages: 1, Lines: pr.lines, PageStats: []PageStat{pr.stat}}, nil
}

// ocrImage cleans one page up and reads it with tesseract. dpi is the page's known
// resolution (pdftoppm's), 0 when it has to be guessed from the size of the text.
func (r *Reader) ocrImage(ctx context.Context, dir string, img image.Image, page, dpi int) (pageResult, error) {
	stat := PageStat{Page: page, Source: SourceTesseract}
	g, lay, err := prepare(ctx, img, dpi)
	if err != nil {
		return pageResult{}, err
	}
	stat.Skew = lay.skew

	file := filepath.Join(dir, fmt.Sprintf("ocr%02d.png", page))
	if err := writePNG(file, g); err != nil {
		return pageResult{}, err
	}
	rot, conf, osdRSS, err := r.osd(ctx, dir, file)
	stat.MaxRSSKB = osdRSS
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrUnavailable)) {
		return pageResult{}, err
	}
	if err == nil && conf >= osdMinConfidence {
		if rot != 0 {
			g = rotate90(g, rot/90)
			if err := writePNG(file, g); err != nil {
				return pageResult{}, err
			}
		}
		vertical := lay.vertical && rot%180 == 0
		pr, err := r.tesseract(ctx, dir, file, page, vertical)
		if err != nil {
			return pageResult{}, err
		}
		pr.stat.Rotation, pr.stat.Skew, pr.stat.MaxRSSKB = rot, stat.Skew, max(pr.stat.MaxRSSKB, stat.MaxRSSKB)
		return pr, nil
	}

	// OSD had too little text to decide: read the plausible orientations and keep the one
	// that reads best. Lines running top to bottom are a page on its side or vertical writing.
	type try struct {
		rot      int
		vertical bool
	}
	tries := []try{{0, false}, {180, false}}
	if lay.vertical {
		tries = []try{{90, false}, {270, false}, {0, true}}
	}
	var best pageResult
	best.score = -1
	for _, t := range tries {
		f := file
		if t.rot != 0 {
			f = filepath.Join(dir, fmt.Sprintf("ocr%02d-%d.png", page, t.rot))
			if err := writePNG(f, rotate90(g, t.rot/90)); err != nil {
				return pageResult{}, err
			}
		}
		pr, err := r.tesseract(ctx, dir, f, page, t.vertical)
		if err != nil {
			return pageResult{}, err
		}
		pr.stat.Rotation, pr.stat.Skew = t.rot, stat.Skew
		stat.MaxRSSKB = max(stat.MaxRSSKB, pr.stat.MaxRSSKB)
		if pr.score > best.score {
			best = pr
		}
	}
	best.stat.MaxRSSKB = stat.MaxRSSKB
	return best, nil
}

// prepare is the clean-up before tesseract: grayscale, despeckle, contrast, deskew,
// upscale small text, binarise faxes and photos. dpi is the page's known resolution
// (pdftoppm's), 0 when it has to be guessed from the size of the text.
func prepare(ctx context.Context, img image.Image, dpi int) (*image.Gray, layout, error) {
	g := toGray(img)
	if long := max(g.Rect.Dx(), g.Rect.Dy()); long > maxLongSide {
		g = scale(g, float64(maxLongSide)/float64(long))
	}
	tone, mid, speckle := measureContrast(g)
	// A median removes a fax's speckles and a photo's grain (without it the grain passes
	// the local threshold and hides the lines from the deskew).
	noisy := speckle > 0.03
	photo := mid > 0.15
	if noisy || photo {
		g = median3(g)
	}
	stretch(g)
	uneven := unevenLight(g)
	if err := ctx.Err(); err != nil {
		return nil, layout{}, err
	}

	lay := analyse(g)
	if math.Abs(lay.skew) >= 0.3 {
		g = rotate(g, -lay.skew)
	} else {
		lay.skew = 0
	}
	// Tesseract reads best with text about 30–40 px high (10 pt at 300 DPI); photos of a
	// page and 200 DPI faxes have smaller text, and upscaling them helps more than anything.
	if dpi == 0 && lay.lineSize > 0 && lay.lineSize < 28 {
		f := math.Min(3, 40/lay.lineSize)
		if long := float64(max(g.Rect.Dx(), g.Rect.Dy())) * f; long > maxLongSide {
			f = maxLongSide / float64(max(g.Rect.Dx(), g.Rect.Dy()))
		}
		if f > 1.1 {
			g = scale(g, f)
		}
	}
	// Photos (grey noise, uneven light) need local thresholds; faxes and faint copies one.
	if tone < 128 || noisy || photo || uneven {
		binarize(g, uneven || photo)
	}
	return g, lay, ctx.Err()
}

func writePNG(path string, g *image.Gray) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("ocr: %w", err)
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(f, g); err != nil {
		f.Close()
		return fmt.Errorf("ocr: %w", err)
	}
	return f.Close()
}

// osd asks tesseract's orientation detection how many degrees clockwise the page must
// turn to be upright (0, 90, 180, 270) and how sure it is.
func (r *Reader) osd(ctx context.Context, dir, file string) (rot int, conf float64, rss int64, err error) {
	out, err := r.run(ctx, dir, nil, "tesseract", file, "stdout", "--dpi", "300", "--psm", "0")
	if err != nil {
		return 0, 0, out.maxRSSKB, err
	}
	found := false
	for l := range strings.SplitSeq(string(out.stdout), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Rotate":
			rot, err = strconv.Atoi(v)
			found = err == nil
		case "Orientation confidence":
			conf, _ = strconv.ParseFloat(v, 64)
		}
	}
	if !found || rot%90 != 0 {
		return 0, 0, out.maxRSSKB, fmt.Errorf("ocr: no orientation found: %s", lastLine(string(out.stderr)))
	}
	return ((rot % 360) + 360) % 360, conf, out.maxRSSKB, nil
}

// tesseract reads one prepared page. psm 6 (one block) keeps a label and its value on
// one line even when the page has columns, which is what the field extraction needs;
// vertical writing reads with the jpn_vert model as a vertical block (psm 5).
func (r *Reader) tesseract(ctx context.Context, dir, file string, page int, vertical bool) (pageResult, error) {
	args := []string{file, "stdout", "--dpi", "300", "-l", "jpn+eng", "--psm", "6", "tsv"}
	if vertical {
		args = []string{file, "stdout", "--dpi", "300", "-l", "jpn_vert+jpn", "--psm", "5", "tsv"}
	}
	out, err := r.run(ctx, dir, nil, "tesseract", args...)
	if err != nil {
		return pageResult{}, err
	}
	lines, score := parseTSV(out.stdout, page, vertical)
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.Text
	}
	return pageResult{
		text:  strings.Join(texts, "\n"),
		lines: lines,
		score: score,
		stat:  PageStat{Page: page, Source: SourceTesseract, MaxRSSKB: out.maxRSSKB, Vertical: vertical},
	}, nil
}

type tsvWord struct {
	left, top, width, height int
	conf                     float64
	text                     string
}

// parseTSV groups tesseract's words into lines. Japanese comes out as one "word" per
// few characters, so spaces are put back only where the page has a gap: a gap of half a
// character becomes a space, a wide gap (between a label and its value across the page)
// two, as pdftotext -layout would show it. A line's confidence is the mean of its words'.
func parseTSV(b []byte, page int, vertical bool) (lines []Line, score float64) {
	type key struct{ block, par, line int }
	var cur key
	var words []tsvWord
	flush := func() {
		if len(words) == 0 {
			return
		}
		var hs []int
		for _, w := range words {
			if vertical {
				hs = append(hs, w.width)
			} else {
				hs = append(hs, w.height)
			}
		}
		slices.Sort(hs)
		size := float64(max(1, hs[len(hs)/2]))
		var sb strings.Builder
		var confSum float64
		var confN int
		for i, w := range words {
			if i > 0 {
				p := words[i-1]
				gap := float64(w.left - (p.left + p.width))
				if vertical {
					gap = float64(w.top - (p.top + p.height))
				}
				switch {
				case gap > 2*size:
					sb.WriteString("  ")
				case gap > 0.5*size:
					sb.WriteString(" ")
				}
			}
			sb.WriteString(w.text)
			if w.conf >= 0 {
				confSum += w.conf
				confN++
				score += w.conf / 100 * float64(utf8.RuneCountInString(w.text))
			}
		}
		conf := 0.0
		if confN > 0 {
			conf = confSum / float64(confN) / 100
		}
		if t := strings.TrimSpace(sb.String()); t != "" {
			lines = append(lines, Line{Text: t, Confidence: math.Round(conf*1000) / 1000, Page: page})
		}
		words = words[:0]
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" { // level 5: a word
			continue
		}
		n := make([]int, 10)
		ok := true
		for i := range 10 {
			if n[i], ok = atoi(f[i]); !ok {
				break
			}
		}
		if !ok {
			continue
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			conf = -1
		}
		k := key{n[2], n[3], n[4]}
		if k != cur {
			flush()
			cur = k
		}
		words = append(words, tsvWord{left: n[6], top: n[7], width: n[8], height: n[9], conf: conf, text: text})
	}
	flush()
	return lines, score
}

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}
