package research

import (
	"math"
	"slices"
	"sort"
)

// Column layout: a page set in two or more columns is read column by
// column, top to bottom, with what spans the columns (a title, an
// abstract, a footer) kept where it stands. The columns are found from
// the text alone: a gutter is an x-range that no run of text crosses
// through a sustained part of the page, with prose-like lines on each
// side. Anything less certain (a table, a centred heading, line numbers
// in a margin) leaves the page in stream order, as before.

// textRun is a stretch of items on one baseline without a wide gap.
type textRun struct {
	items   []pdfItem // a window on the page's items, not a copy
	x0, x1  float64
	y       float64
	size    float64
	guessed int // items whose width is an estimate
}

// Thresholds, in units of the page's median font size unless said.
const (
	runGapEm       = 0.8  // a gap this wide ends a run
	minGutterEm    = 0.8  // a gutter at least this wide
	minColumnEm    = 12   // a column at least this wide
	bandGapEm      = 3    // a blank strip this tall across the page splits bands
	minColumnLines = 4    // lines in each column
	minLayoutRuns  = 12   // runs on the page before columns are looked for
	minColumnShare = 0.4  // of the text height set in columns
	proseFill      = 0.6  // median line width over column width
	balancedCols   = 0.5  // narrowest column over widest
	centralMargin  = 0.1  // gutters are looked for inside this margin of the text width
	maxLayoutBins  = 4096 // bins across the text width
	minLayoutEm    = 4.0  // points: a smaller median size is rotated text
)

// splitRuns cuts stream-order items into runs: a new run where the
// baseline moves, where the text jumps back before the run's start, or at
// a gap of runGapEm.
func splitRuns(items []pdfItem) []textRun {
	var runs []textRun
	var cur *textRun
	prevEnd := 0.0
	for i := range items {
		t := &items[i]
		em := math.Max(math.Abs(t.FontSize), 1)
		if cur != nil {
			gap := t.left - prevEnd
			if math.Abs(t.Y-cur.y) > math.Max(em*0.4, 1) || gap > runGapEm*em || t.left < cur.x0-em {
				cur = nil
			}
		}
		if cur == nil {
			runs = append(runs, textRun{items: items[i:i], x0: t.left, x1: t.right, y: t.Y, size: em})
			cur = &runs[len(runs)-1]
		}
		cur.items = items[i-len(cur.items) : i+1]
		if t.guessed {
			cur.guessed++
		}
		cur.x0 = math.Min(cur.x0, t.left)
		cur.x1 = math.Max(cur.x1, t.right)
		prevEnd = t.right
	}
	return runs
}

// columnRegions returns the page's items grouped into regions in reading
// order (top band, its columns left to right, next band …), or the items
// as one region when the page is not set in columns.
func columnRegions(items []pdfItem) [][]pdfItem {
	if regions := columnLayout(splitRuns(items)); regions != nil {
		return regions
	}
	return [][]pdfItem{items}
}

// gutter is a vertical strip free of column text, from a to b.
type gutter struct{ a, b float64 }

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// columnLayout finds candidate gutters and returns the regions of the
// first layout that passes layoutRegions' checks: all candidates together
// (three columns have two gutters), else the widest single one that
// passes; nil when none does.
func columnLayout(runs []textRun) [][]pdfItem {
	if len(runs) < minLayoutRuns {
		return nil
	}
	sizes := make([]float64, len(runs))
	x0, x1 := math.Inf(1), math.Inf(-1)
	items, guessed := 0, 0
	for i, r := range runs {
		sizes[i] = r.size
		x0, x1 = math.Min(x0, r.x0), math.Max(x1, r.x1)
		items, guessed = items+len(r.items), guessed+r.guessed
	}
	// Estimated widths (a standard font drawn without /Widths) are too
	// rough to find a gutter by: such a page stays in stream order.
	if guessed*20 > items {
		return nil
	}
	em := medianOf(sizes)
	width := x1 - x0
	// A median size under minLayoutEm is rotated text (the text matrix
	// gives no horizontal size): no columns by x there.
	if em < minLayoutEm || width < 2*minColumnEm*em {
		return nil
	}
	bin := math.Max(1, width/maxLayoutBins)
	nb := int(width/bin) + 1
	cover := make([]int, nb+1)
	for _, r := range runs {
		a, b := int(math.Ceil((r.x0-x0)/bin)), int(math.Floor((r.x1-x0)/bin))
		if b > a {
			cover[a]++
			cover[b]--
		}
	}
	for i := 1; i <= nb; i++ {
		cover[i] += cover[i-1]
	}
	lo, hi := int(width*centralMargin/bin), int(width*(1-centralMargin)/bin)
	least := len(runs)
	for i := lo; i < hi; i++ {
		least = min(least, cover[i])
	}
	if least*2 > len(runs) {
		return nil
	}
	// Candidates: stretches near the least cover, wide enough. (Not
	// at the least cover alone: a centred page number, or a line end
	// protruding into the gutter, narrows that to a sliver.)
	tol := max(1, len(runs)/50)
	var cands []gutter
	for i := lo; i < hi; {
		if cover[i] > least+tol {
			i++
			continue
		}
		j := i
		for j < hi && cover[j] <= least+tol {
			j++
		}
		if g := (gutter{x0 + float64(i)*bin, x0 + float64(j)*bin}); g.b-g.a >= minGutterEm*em {
			cands = append(cands, g)
		}
		i = j
	}
	if len(cands) == 0 {
		return nil
	}
	if regions := layoutRegions(runs, cands); regions != nil || len(cands) == 1 {
		return regions
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].b-cands[i].a > cands[j].b-cands[j].a })
	for _, g := range cands {
		if regions := layoutRegions(runs, []gutter{g}); regions != nil {
			return regions
		}
	}
	return nil
}

// layoutRegions splits the page into bands from top to bottom, a band
// being full-width runs (crossing a gutter) or column runs, and returns
// the regions in reading order. It returns nil unless the columns are
// sustained: enough runs in each, prose-like widths, balanced, and a good
// share of the text height.
func layoutRegions(runs []textRun, gutters []gutter) [][]pdfItem {
	col := make([]int, len(runs)) // -1 for full width
	sizes := make([]float64, len(runs))
	for i, r := range runs {
		sizes[i] = r.size
		for _, g := range gutters {
			// A run across the gutter spans the columns, as does one
			// inside it (a page number centred between them); one that
			// only reaches into it (an overfull line) does not.
			if r.x0 < g.b && r.x1 > g.a && (r.x0 <= g.a && r.x1 >= g.b || r.x0 >= g.a && r.x1 <= g.b) {
				col[i] = -1
				break
			}
			if r.x1 > g.b {
				col[i]++
			}
		}
	}
	em := medianOf(sizes)
	order := make([]int, len(runs))
	top, bottom := math.Inf(-1), math.Inf(1)
	for i, r := range runs {
		order[i] = i
		top, bottom = math.Max(top, r.y+r.size), math.Min(bottom, r.y)
	}
	sort.SliceStable(order, func(a, b int) bool { return runs[order[a]].y > runs[order[b]].y })
	band := bands(runs, order, col, em)
	// The text height set in columns.
	columnHeight := 0.0
	for k := 0; k < len(order); {
		e := k
		for e < len(order) && band[order[e]] == band[order[k]] {
			e++
		}
		if col[order[k]] >= 0 {
			columnHeight += runs[order[k]].y - runs[order[e-1]].y + em
		}
		k = e
	}
	if columnHeight < minColumnShare*(top-bottom) {
		return nil
	}
	// Each column: enough lines, prose-like, balanced with the others.
	// Lines, not runs: justified text in a narrow column has word gaps
	// wide enough to cut runs.
	type lineKey struct {
		col int
		y   int
	}
	lines := map[lineKey][2]float64{}
	ncols := len(gutters) + 1
	lefts, rights := make([]float64, ncols), make([]float64, ncols)
	for c := range lefts {
		lefts[c], rights[c] = math.Inf(1), math.Inf(-1)
	}
	for i, r := range runs {
		c := col[i]
		if c < 0 {
			continue
		}
		k := lineKey{c, int(math.Round(r.y))}
		if l, ok := lines[k]; ok {
			lines[k] = [2]float64{math.Min(l[0], r.x0), math.Max(l[1], r.x1)}
		} else {
			lines[k] = [2]float64{r.x0, r.x1}
		}
		lefts[c], rights[c] = math.Min(lefts[c], r.x0), math.Max(rights[c], r.x1)
	}
	widths := make([][]float64, ncols)
	for k, l := range lines {
		widths[k.col] = append(widths[k.col], l[1]-l[0])
	}
	widest := 0.0
	for c := range widths {
		extent := rights[c] - lefts[c]
		if len(widths[c]) < minColumnLines || extent < minColumnEm*em || medianOf(widths[c]) < proseFill*extent {
			return nil
		}
		widest = math.Max(widest, extent)
	}
	for c := range widths {
		if rights[c]-lefts[c] < balancedCols*widest {
			return nil
		}
	}
	// Regions keyed by (band, column), each in stream order.
	type key struct{ band, col int }
	idx := map[key]int{}
	var keys []key
	var regions [][]pdfItem
	for i, r := range runs {
		k := key{band[i], max(col[i], 0)}
		j, ok := idx[k]
		if !ok {
			j = len(regions)
			idx[k] = j
			keys = append(keys, k)
			regions = append(regions, nil)
		}
		regions[j] = append(regions[j], r.items...)
	}
	perm := make([]int, len(regions))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool {
		ka, kb := keys[perm[a]], keys[perm[b]]
		return ka.band < kb.band || ka.band == kb.band && ka.col < kb.col
	})
	out := make([][]pdfItem, len(perm))
	for i, j := range perm {
		out[i] = regions[j]
	}
	return out
}

// bands numbers the runs' bands from the top: a band ends where the runs
// (in order, top to bottom) switch between full width and columns, and
// where a blank strip of bandGapEm crosses the page next to a thin band
// (one or two lines: a running head or foot set apart from the body).
// Blank strips inside the body do not split it: a section heading in
// one column and a float in the other can line their gaps up by chance.
func bands(runs []textRun, order, col []int, em float64) []int {
	type segment struct {
		start, end int  // in order
		gap        bool // begins at a blank strip, not a switch
		lines      int  // baselines
	}
	var segs []segment
	for k, i := range order {
		if k == 0 {
			segs = append(segs, segment{start: 0, end: 1, lines: 1})
			continue
		}
		prev := order[k-1]
		switched := (col[i] >= 0) != (col[prev] >= 0)
		if switched || runs[prev].y-runs[i].y > bandGapEm*em {
			segs = append(segs, segment{start: k, end: k + 1, gap: !switched, lines: 1})
			continue
		}
		last := &segs[len(segs)-1]
		last.end = k + 1
		if math.Round(runs[prev].y) != math.Round(runs[i].y) {
			last.lines++
		}
	}
	band := make([]int, len(runs))
	n := 0
	for j, sg := range segs {
		if j > 0 {
			prev := segs[j-1]
			body := sg.gap && col[order[sg.start]] >= 0 && sg.lines > 2 && prev.lines > 2
			if !body {
				n++
			}
		}
		for k := sg.start; k < sg.end; k++ {
			band[order[k]] = n
		}
	}
	return band
}
