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
	image string  // the prepared image read (its orientation), for Reread
	grey  string  // a photo's page in grey before its threshold, as image lies ("": none)
	tsv   []byte  // tesseract's answer, for recoverLost
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
	return Result{Text: pr.text, Source: SourceTesseract, Pages: 1, Lines: pr.lines, PageStats: []PageStat{pr.stat},
		images: map[int]string{1: pr.image}, greys: greys(1, pr.grey)}, nil
}

// greys is Result.greys of one page: empty when the page has no grey copy.
func greys(page int, file string) map[int]string {
	if file == "" {
		return nil
	}
	return map[int]string{page: file}
}

// ocrImage cleans one page up and reads it with tesseract. dpi is the page's known
// resolution (pdftoppm's), 0 when it has to be guessed from the size of the text.
func (r *Reader) ocrImage(ctx context.Context, dir string, img image.Image, page, dpi int) (pageResult, error) {
	g, grey, lay, err := prepare(ctx, img, dpi)
	if err != nil {
		return pageResult{}, err
	}
	pr, err := r.readPage(ctx, dir, g, lay, page)
	pr.stat.OneBit = lay.oneBit
	if err != nil || grey == nil {
		return pr, err
	}
	// A photo's page in grey, turned as the page read was, for its block crops (Reread):
	// its bare pixels, the size of the page's image, as only this process reads them.
	pr.grey = filepath.Join(dir, fmt.Sprintf("ocr%02d.grey", page))
	grey = rotate90(grey, pr.stat.Rotation/90)
	if err := os.WriteFile(pr.grey, grey.Pix, 0o600); err != nil {
		return pageResult{}, fmt.Errorf("ocr: %w", err)
	}
	return pr, nil
}

// readPage reads prepared page g: as it is when it reads upright, otherwise turned as
// OSD, or the best of the plausible turns, says.
func (r *Reader) readPage(ctx context.Context, dir string, g *image.Gray, lay layout, page int) (pageResult, error) {
	stat := PageStat{Page: page, Source: SourceTesseract, Skew: lay.skew}

	file := filepath.Join(dir, fmt.Sprintf("ocr%02d.png", page))
	if err := writePNG(file, g); err != nil {
		return pageResult{}, err
	}
	// Most pages arrive upright. Reading the page as it is first and asking OSD only when
	// that reading is poor saves OSD's own pass over the whole page, which costs about as
	// much as the reading. Lines running top to bottom are a page on its side or vertical
	// writing: OSD first.
	var upright *pageResult
	if !lay.vertical {
		pr, err := r.tesseract(ctx, dir, file, page, false, lay.photo)
		if err != nil {
			return pageResult{}, err
		}
		pr.stat.Skew = stat.Skew
		if readsUpright(pr) {
			return r.withLost(ctx, dir, g, lay, pr)
		}
		upright = &pr
		stat.MaxRSSKB = pr.stat.MaxRSSKB
	}
	rot, conf, osdRSS, err := r.osd(ctx, dir, file)
	stat.MaxRSSKB = max(stat.MaxRSSKB, osdRSS)
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrUnavailable)) {
		return pageResult{}, err
	}
	if err == nil && conf >= osdMinConfidence {
		vertical := lay.vertical && rot%180 == 0
		if rot == 0 && !vertical && upright != nil {
			// OSD agrees with the page as it is: the first reading stands.
			upright.stat.MaxRSSKB = stat.MaxRSSKB
			return r.withLost(ctx, dir, g, lay, *upright)
		}
		if rot != 0 {
			g = rotate90(g, rot/90)
			if err := writePNG(file, g); err != nil {
				return pageResult{}, err
			}
		}
		pr, err := r.tesseract(ctx, dir, file, page, vertical, lay.photo)
		if err != nil {
			return pageResult{}, err
		}
		pr.stat.Rotation, pr.stat.Skew, pr.stat.MaxRSSKB = rot, stat.Skew, max(pr.stat.MaxRSSKB, stat.MaxRSSKB)
		if vertical {
			return pr, nil
		}
		return r.withLost(ctx, dir, g, lay, pr)
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
		if t.rot == 0 && !t.vertical && upright != nil {
			if upright.score > best.score {
				best = *upright
			}
			continue
		}
		f := file
		if t.rot != 0 {
			f = filepath.Join(dir, fmt.Sprintf("ocr%02d-%d.png", page, t.rot))
			if err := writePNG(f, rotate90(g, t.rot/90)); err != nil {
				return pageResult{}, err
			}
		}
		pr, err := r.tesseract(ctx, dir, f, page, t.vertical, lay.photo)
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

// withLost is pr with the lines its page segmentation left out read again
// (recoverLost); g is the image pr read. A part that cannot be read leaves pr as it was.
// A photo's is not looked for: what its reading leaves uncovered is mostly grain, the
// desk and shadow, read again on 9 photos in 10 for 0.35 s each and no field more on
// either set of `task ocr:accuracy`, where a page's time is tightest (p50 3.1 → 2.6 s).
func (r *Reader) withLost(ctx context.Context, dir string, g *image.Gray, lay layout, pr pageResult) (pageResult, error) {
	if lay.photo {
		return pr, nil
	}
	tsv, rss, err := r.recoverLost(ctx, dir, g, pr.stat.Page, pr.tsv, pr.lines)
	if err != nil {
		if ctx.Err() != nil {
			return pageResult{}, ctx.Err()
		}
		r.logger().Warn("ocr: lost lines not read again", "page", pr.stat.Page, "err", err)
		return pr, nil
	}
	if tsv == nil {
		return pr, nil
	}
	lines, _ := parseTSV(tsv, pr.stat.Page, false)
	pr.lines, pr.text, pr.tsv = lines, joinText(lines), tsv
	pr.stat.MaxRSSKB = max(pr.stat.MaxRSSKB, rss)
	return pr, nil
}

// joinText is a page's text: its lines, one per line.
func joinText(lines []Line) string {
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.Text
	}
	return strings.Join(texts, "\n")
}

// A reading of a page as it came is taken as upright, without asking OSD, when it has
// at least uprightChars characters on lines read with a confidence of 0.7 or more and a
// mean confidence of uprightMean over all its characters. On the generated invoices an
// upright page reads 190–630 such characters at a mean of 0.57–0.86, the same page upside
// down 0–20 at 0.32–0.42; a page with too little text for either goes to OSD as before.
const (
	uprightChars = 60
	uprightMean  = 0.5
)

// readsUpright says whether pr, a page read as it came, reads as upright text.
func readsUpright(pr pageResult) bool {
	var chars, confident int
	var sum float64
	for _, l := range pr.lines {
		n := utf8.RuneCountInString(l.Text)
		chars += n
		sum += l.Confidence * float64(n)
		if l.Confidence >= 0.7 {
			confident += n
		}
	}
	return chars > 0 && confident >= uprightChars && sum/float64(chars) >= uprightMean
}

// a4At300 is the long side of A4 at 300 DPI in pixels.
const a4At300 = 3508

// prepare is the clean-up before tesseract: grayscale without the seal's red, a
// photographed sheet flattened, despeckle, contrast, deskew, upscale small text,
// binarise faxes and photos (clearing the desk round a photo), ruled lines whitened.
// dpi is the page's known resolution (pdftoppm's), 0 when it has to be guessed from the
// size of the text.
//
// grey is a photo's page as g, before its local threshold (nil for any other page): the
// threshold of a whole page keeps a blurred photo's thin Mincho strokes apart at the
// body text's size and runs them together in a ruled table's small print (京都銀行 read
// as Reta); a block's crop of the grey, thresholded by tesseract (Reread), reads them.
func prepare(ctx context.Context, img image.Image, dpi int) (_ *image.Gray, grey *image.Gray, _ layout, _ error) {
	g := toGray(img)
	stepped := oneBit(g)
	if long := max(g.Rect.Dx(), g.Rect.Dy()); long > maxLongSide {
		g = scale(g, float64(maxLongSide)/float64(long))
	}
	// A photo (grey mid-tones) of a sheet on a desk: the sheet, flattened.
	if _, mid, _ := measureContrast(g); mid > 0.15 {
		if flat, ok := flatten(g); ok {
			g = flat
		}
	}
	tone, mid, speckle := measureContrast(g)
	// A median removes a photo's grain (without it the grain passes the local threshold
	// and hides the lines from the deskew); a fax's specks go one by one (despeckle), as a
	// median would also eat its thin strokes.
	noisy := speckle > 0.03
	photo := mid > 0.15
	switch {
	case photo:
		g = median3(g)
	case noisy:
		g = despeckle(g)
	}
	stretch(g)
	uneven := unevenLight(g)
	if err := ctx.Err(); err != nil {
		return nil, nil, layout{}, err
	}

	lay := analyse(g)
	lay.photo, lay.oneBit = photo, stepped
	if math.Abs(lay.skew) >= 0.3 {
		g = rotate(g, -lay.skew)
	} else {
		lay.skew = 0
	}
	// Tesseract reads best with text about 30–40 px high (10 pt at 300 DPI); photos of a
	// page and 200 DPI faxes have smaller text, and upscaling them helps more than anything.
	f := 1.0
	switch long := float64(max(g.Rect.Dx(), g.Rect.Dy())); {
	case dpi != 0:
	case lay.lineSize > 0 && lay.lineSize < 28:
		f = math.Min(3, 40/lay.lineSize)
	case lay.lineSize == 0 && long < a4At300:
		// The lines could not be measured (a photo's uneven page): a whole page smaller
		// than A4 at 300 DPI is taken to hold A4's text, and brought to that size.
		f = math.Min(2, a4At300/long)
	}
	if f > 1.1 {
		if long := float64(max(g.Rect.Dx(), g.Rect.Dy())) * f; long > maxLongSide {
			f = maxLongSide / float64(max(g.Rect.Dx(), g.Rect.Dy()))
		}
		g = scale(g, f)
	}
	// Photos (grey noise, uneven light) need local thresholds; faxes and faint copies one.
	if tone < 128 || noisy || photo || uneven {
		if photo {
			grey = image.NewGray(image.Rect(0, 0, g.Rect.Dx(), g.Rect.Dy()))
			for y := range g.Rect.Dy() {
				copy(grey.Pix[y*grey.Stride:], g.Pix[y*g.Stride:y*g.Stride+g.Rect.Dx()])
			}
		}
		binarize(g, uneven || photo)
		if uneven || photo {
			clearBorder(g)
		}
	}
	removeRules(g, stepped)
	return g, grey, lay, ctx.Err()
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

// tesseract reads one prepared page with automatic page segmentation (psm 3: psm 6,
// one block, loses whole blocks of a page with columns and tables; parseTSV joins the
// rows again); vertical writing reads with the jpn_vert model as a vertical block (psm 5).
//
// A page reads with the Japanese and English models, a photo's (photo) with the Japanese
// alone. The English model reads a fax's and a scan's digits and letters better (T-numbers,
// amounts: with the Japanese alone, on task ocr:accuracy's sets, the holdout faxes' totals
// went from 100 to 80 % and their fields from 81 to 74 %), but it costs a third of the
// reading's time, and on a photo's grain it reads Latin letters where the Japanese model
// reads the kana and kanji: photos read with it alone stayed at 93 % (generator) and went
// 87 → 89 % (holdout: a photo's dates found), their page p50 3.93 → 2.89 s and 3.51 →
// 3.07 s on the slow 2-core machine of issue 28's eighth session. (Every page with the
// Japanese alone: clean images read as well and 0.7–1 s faster, scanned PDFs 98 → 96 and
// 92 → 90 %.)
func (r *Reader) tesseract(ctx context.Context, dir, file string, page int, vertical, photo bool) (pageResult, error) {
	langs := "jpn+eng"
	if photo {
		langs = "jpn"
	}
	args := []string{file, "stdout", "--dpi", "300", "-l", langs, "--psm", "3", "tsv"}
	if vertical {
		args = []string{file, "stdout", "--dpi", "300", "-l", "jpn_vert+jpn", "--psm", "5", "tsv"}
	}
	out, err := r.run(ctx, dir, nil, "tesseract", args...)
	if err != nil {
		return pageResult{}, err
	}
	lines, score := parseTSV(out.stdout, page, vertical)
	return pageResult{
		text:  joinText(lines),
		lines: lines,
		score: score,
		image: file,
		tsv:   out.stdout,
		stat:  PageStat{Page: page, Source: SourceTesseract, MaxRSSKB: out.maxRSSKB, Vertical: vertical},
	}, nil
}

type tsvWord struct {
	left, top, width, height int
	conf                     float64
	text                     string
}

// tsvLine is one of tesseract's lines: its words in reading order and the box around them.
type tsvLine struct {
	words                    []tsvWord
	left, top, right, bottom int
}

// parseTSV turns tesseract's words into lines of text as pdftotext -layout would show
// them. Tesseract's page segmentation puts a label and its value in different blocks
// when the page has columns or a table (請求日 on the left, its date on the right); the
// lines whose boxes share a row of the page are joined again, left to right, so that
// a label and its value meet on one line as the field extraction expects. Japanese
// comes out as one "word" per few characters, so spaces are put back only where the
// page has a gap: a gap of half a character becomes a space, a wide gap (between a label
// and its value across the page) two. A line's confidence is the mean of its words'.
// Vertical writing is read a column at a time and its lines are kept as they are.
func parseTSV(b []byte, page int, vertical bool) (lines []Line, score float64) {
	type key struct{ block, par, line int }
	var cur key
	var units []*tsvLine
	for _, r := range wordRows(b) {
		n := r.n
		w := tsvWord{left: n[6], top: n[7], width: n[8], height: n[9], conf: r.conf, text: r.text}
		k := key{n[2], n[3], n[4]}
		if k != cur || len(units) == 0 {
			cur = k
			units = append(units, &tsvLine{left: w.left, top: w.top, right: w.left + w.width, bottom: w.top + w.height})
		}
		u := units[len(units)-1]
		u.words = append(u.words, w)
		u.left, u.top = min(u.left, w.left), min(u.top, w.top)
		u.right, u.bottom = max(u.right, w.left+w.width), max(u.bottom, w.top+w.height)
	}
	rows := units
	if !vertical {
		rows = joinRows(units)
	}
	for _, u := range rows {
		l, s := lineText(u.words, page, vertical)
		score += s
		if l.Text != "" {
			l.Box = image.Rect(u.left, u.top, u.right, u.bottom)
			lines = append(lines, l)
		}
	}
	return lines, score
}

// wordRow is one word of tesseract's tsv: its ten numbers (level, page, block, paragraph,
// line, word, left, top, width, height), its confidence (-1 when none) and its text.
type wordRow struct {
	n    [10]int
	conf float64
	text string
}

// wordRows are the words (level 5) of tesseract's tsv answer that hold text.
func wordRows(b []byte) []wordRow {
	var out []wordRow
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" { // level 5: a word
			continue
		}
		var r wordRow
		ok := true
		for i := range 10 {
			if r.n[i], ok = atoi(f[i]); !ok {
				break
			}
		}
		if r.text = strings.TrimSpace(f[11]); !ok || r.text == "" {
			continue
		}
		var err error
		if r.conf, err = strconv.ParseFloat(f[10], 64); err != nil {
			r.conf = -1
		}
		out = append(out, r)
	}
	return out
}

// joinRows joins the lines that share a row of the page: a line belongs to a row when
// the middle of its box lies within the row's band and the row's middle within its box
// (so a tall line, a seal or a logo, does not swallow its neighbours). Rows come out top
// to bottom, each one's words left to right.
func joinRows(units []*tsvLine) []*tsvLine {
	sorted := slices.Clone(units)
	slices.SortStableFunc(sorted, func(a, b *tsvLine) int { return (a.top + a.bottom) - (b.top + b.bottom) })
	var rows []*tsvLine
	for _, u := range sorted {
		mid := (u.top + u.bottom) / 2
		var row *tsvLine
		for _, r := range slices.Backward(rows) {
			rmid := (r.top + r.bottom) / 2
			if mid >= r.top && mid <= r.bottom && rmid >= u.top && rmid <= u.bottom && similarHeight(r, u) && !overlapsX(r, u) {
				row = r
				break
			}
			if r.bottom < u.top-(u.bottom-u.top) {
				break // rows are sorted: nothing further up can share this one's row
			}
		}
		if row == nil {
			c := *u
			c.words = slices.Clone(u.words)
			rows = append(rows, &c)
			continue
		}
		row.words = append(row.words, u.words...)
		row.left, row.top = min(row.left, u.left), min(row.top, u.top)
		row.right, row.bottom = max(row.right, u.right), max(row.bottom, u.bottom)
	}
	for _, r := range rows {
		slices.SortStableFunc(r.words, func(a, b tsvWord) int { return a.left - b.left })
	}
	slices.SortStableFunc(rows, func(a, b *tsvLine) int { return a.top - b.top })
	return rows
}

// similarHeight says whether two lines are of one size of type, as a label and its value
// are (a seal or a logo beside them is not).
func similarHeight(a, b *tsvLine) bool {
	ha, hb := a.bottom-a.top, b.bottom-b.top
	return ha <= 2*hb && hb <= 2*ha
}

// overlapsX says whether u runs over the words already in row r (two lines of one
// column set close together, not two columns of one row).
func overlapsX(r, u *tsvLine) bool {
	for _, w := range r.words {
		if w.left < u.right && u.left < w.left+w.width {
			return true
		}
	}
	return false
}

// lineText writes one line's words with the page's gaps as spaces.
func lineText(words []tsvWord, page int, vertical bool) (Line, float64) {
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
	ws := make([]Word, 0, len(words))
	var confSum, score float64
	var confN int
	for i, w := range words {
		if i > 0 {
			p := words[i-1]
			gap := float64(w.left - (p.left + p.width))
			if vertical {
				gap = float64(w.top - (p.top + p.height))
			}
			// Between two Japanese characters a proportional font leaves gaps of up to
			// most of a character where no space was typed (株式 会社); only a full
			// character's gap is a space there.
			space := 0.5 * size
			if wide(lastRune(p.text)) && wide(firstRune(w.text)) {
				space = size
			}
			switch {
			case gap > 2*size:
				sb.WriteString("  ")
			case gap > space:
				sb.WriteString(" ")
			}
		}
		sb.WriteString(w.text)
		ws = append(ws, Word{Text: w.text, Box: image.Rect(w.left, w.top, w.left+w.width, w.top+w.height), Confidence: max(w.conf, 0) / 100})
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
	return Line{Text: strings.TrimSpace(sb.String()), Confidence: math.Round(conf*1000) / 1000, Page: page, Words: ws}, score
}

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

// wide says whether r is written without spaces around it in Japanese: kana, kanji and
// the full-width forms.
func wide(r rune) bool {
	return r >= 0x3000 && r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF || r >= 0xFF01 && r <= 0xFF60
}
