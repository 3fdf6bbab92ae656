// Package timeline draws who owned what when: one lane per resource, time
// across, each owner's holding as a bar in its own colour, fenced zombies'
// holdings hatched pale, and marks (law violations, quiet points) as
// vertical lines. Where two owners hold a resource at once, the lane
// splits so both show. It draws with gonum.org/v1/plot; the oracle draws
// failing traces with it, and any list of ownership views can be drawn
// (FromViews).
package timeline

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Segment is one owner's holding of one resource over [From, To].
type Segment struct {
	Lane     string
	Owner    string
	From, To float64
	// Zombie marks a holding the group no longer counts (a fenced
	// member's): drawn pale.
	Zombie bool
}

// Mark is a point in time to draw across every lane, labelled.
type Mark struct {
	At    float64
	Label string
	// Alarm draws the mark red (a violation); otherwise grey.
	Alarm bool
}

// Timeline is what to draw.
type Timeline struct {
	Title  string
	XLabel string
	// Lanes are drawn top to bottom in this order; a segment's lane must
	// be one of them.
	Lanes    []string
	Segments []Segment
	Marks    []Mark
	// LaneTicks is the most lanes labelled on the left: with more lanes
	// than that, every k-th lane is labelled (the first among them), so
	// that hundreds of thin lanes stay readable. Zero labels every lane.
	LaneTicks int
	// Dense draws each bar the full height of its lane, with no space
	// between lanes: with hundreds of thin lanes, the only white is then
	// where nobody holds a resource.
	Dense bool
}

// palette holds distinguishable colours for up to 12 owners (Okabe–Ito,
// then darker variants), assigned in owner-name order; more owners get
// colours of their own (ownerColours).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {213, 94, 0, 255}, {240, 228, 66, 255}, {0, 0, 0, 255},
	{0, 70, 110, 255}, {150, 100, 0, 255}, {0, 100, 70, 255}, {140, 70, 110, 255},
}

// ownerColours gives n owners their colours, in order: the palette when
// it is long enough (so small pictures keep their colours), otherwise n
// hues spread around the colour wheel with the lightness alternating in
// three steps, so that neighbours in name order differ in both and no two
// owners share a colour.
func ownerColours(n int) []color.RGBA {
	out := make([]color.RGBA, n)
	if n <= len(palette) {
		copy(out, palette)
		return out
	}
	for i := range out {
		out[i] = hsl(float64(i)/float64(n)*360, 0.75, []float64{0.38, 0.55, 0.70}[i%3])
	}
	return out
}

// hsl converts a hue (degrees), saturation and lightness (0–1) to RGB.
func hsl(h, s, l float64) color.RGBA {
	c := (1 - math.Abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r, g, b float64
	switch {
	case hp < 1:
		r, g = c, x
	case hp < 2:
		r, g = x, c
	case hp < 3:
		g, b = c, x
	case hp < 4:
		g, b = x, c
	case hp < 5:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	u8 := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return color.RGBA{u8(r), u8(g), u8(b), 255}
}

// Owners returns the owners of t's segments, sorted: the legend's order.
func (t Timeline) Owners() []string {
	var out []string
	for _, s := range t.Segments {
		out = append(out, s.Owner)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Validate reports a segment outside the lanes, ending before it starts,
// or a lane listed twice.
func (t Timeline) Validate() error {
	lanes := map[string]bool{}
	for _, l := range t.Lanes {
		if lanes[l] {
			return fmt.Errorf("timeline: lane %q listed twice", l)
		}
		lanes[l] = true
	}
	for _, s := range t.Segments {
		switch {
		case !lanes[s.Lane]:
			return fmt.Errorf("timeline: segment of %s on unknown lane %q", s.Owner, s.Lane)
		case s.To < s.From:
			return fmt.Errorf("timeline: segment of %s on %s ends at %g before it starts at %g", s.Owner, s.Lane, s.To, s.From)
		}
	}
	return nil
}

// WriteSVG draws t as an SVG of the given size (zero: a size that fits
// the lanes) to w.
func (t Timeline) WriteSVG(w io.Writer, width, height vg.Length) error {
	return t.Write(w, "svg", width, height)
}

// Write draws t in format ("svg", "png", "pdf", ...: what plot.WriterTo
// takes) at the given size (zero: a size that fits the lanes) to w.
func (t Timeline) Write(w io.Writer, format string, width, height vg.Length) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if width == 0 {
		width = 9 * vg.Inch
	}
	if height == 0 {
		height = vg.Length(1.4+0.28*float64(max(len(t.Lanes), 2))) * vg.Inch
	}
	p := plot.New()
	p.Title.Text = t.Title
	p.X.Label.Text = cmp.Or(t.XLabel, "time")
	p.Y.Tick.Marker = laneTicks{lanes: t.Lanes, most: t.LaneTicks}
	p.Y.Min, p.Y.Max = -0.5, float64(len(t.Lanes))-0.5
	p.Legend.Top = true
	p.Legend.Left = false
	bars := &bars{t: t, colour: map[string]color.RGBA{}}
	owners := t.Owners()
	colours := ownerColours(len(owners))
	for i, o := range owners {
		bars.colour[o] = colours[i]
		p.Legend.Add(o, swatch(bars.colour[o]))
	}
	p.Add(bars)
	for _, m := range t.Marks {
		line, err := plotter.NewLine(plotter.XYs{{X: m.At, Y: -0.5}, {X: m.At, Y: float64(len(t.Lanes)) - 0.5}})
		if err != nil {
			return err
		}
		line.Color = color.RGBA{140, 140, 140, 255}
		line.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		if m.Alarm {
			line.Color, line.Width, line.Dashes = color.RGBA{200, 0, 0, 255}, vg.Points(1.5), nil
		}
		p.Add(line)
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.At, Y: -0.5}}, Labels: []string{m.Label}})
		if err != nil {
			return err
		}
		labels.TextStyle[0].Color = line.Color
		labels.TextStyle[0].YAlign = draw.YBottom
		labels.Offset = vg.Point{X: vg.Points(2)}
		p.Add(labels)
	}
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// laneTicks labels lane i at y = len(lanes)-1-i, so the first lane is on
// top: every lane, or every k-th when there are more than most.
type laneTicks struct {
	lanes []string
	most  int
}

// Ticks returns one labelled tick per lane labelled.
func (l laneTicks) Ticks(min, max float64) []plot.Tick {
	step := 1
	if l.most > 0 && len(l.lanes) > l.most {
		step = (len(l.lanes) + l.most - 1) / l.most
	}
	var out []plot.Tick
	for i := 0; i < len(l.lanes); i += step {
		out = append(out, plot.Tick{Value: float64(len(l.lanes) - 1 - i), Label: l.lanes[i]})
	}
	return out
}

// bars draws the segments.
type bars struct {
	t      Timeline
	colour map[string]color.RGBA
}

// Plot draws each segment as a bar in its lane; segments that overlap in
// time in one lane take sub-rows of it.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	row := map[string]int{}
	for i, l := range b.t.Lanes {
		row[l] = len(b.t.Lanes) - 1 - i
	}
	slot, slots := subRows(b.t.Segments)
	for i, s := range b.t.Segments {
		fill, gap := 0.8, 0.92
		if b.t.Dense {
			fill, gap = 1, 1
		}
		h := fill / float64(slots[s.Lane])
		y0 := float64(row[s.Lane]) - fill/2 + h*float64(slot[i])
		var col color.Color = b.colour[s.Owner]
		if s.Zombie {
			c := b.colour[s.Owner]
			col = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 80}
		}
		x0, x1 := tx(s.From), tx(s.To)
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1)
		}
		rect := []vg.Point{{X: x0, Y: ty(y0)}, {X: x1, Y: ty(y0)}, {X: x1, Y: ty(y0 + h*gap)}, {X: x0, Y: ty(y0 + h*gap)}}
		c.FillPolygon(col, c.ClipPolygonXY(rect))
	}
}

// DataRange spans the segments and marks in time, and the lanes.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	first := true
	span := func(x float64) {
		if first || x < xmin {
			xmin = x
		}
		if first || x > xmax {
			xmax = x
		}
		first = false
	}
	for _, s := range b.t.Segments {
		span(s.From)
		span(s.To)
	}
	for _, m := range b.t.Marks {
		span(m.At)
	}
	xmin = min(xmin, 0)
	if xmax == xmin {
		xmax = xmin + 1
	}
	// Room on the right for the legend.
	xmax += (xmax - xmin) * 0.12
	return xmin, xmax, -0.5, float64(len(b.t.Lanes)) - 0.5
}

// subRows gives each segment the lowest sub-row of its lane not taken by
// an earlier segment it overlaps (segments in start order), and each
// lane's number of sub-rows.
func subRows(segs []Segment) ([]int, map[string]int) {
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(segs[a].From, segs[b].From) })
	slot := make([]int, len(segs))
	ends := map[string][]float64{} // lane → the end of each sub-row's last segment
	for _, i := range order {
		s := segs[i]
		rows := ends[s.Lane]
		k := slices.IndexFunc(rows, func(end float64) bool { return end <= s.From })
		if k < 0 {
			k = len(rows)
			rows = append(rows, 0)
		}
		rows[k] = s.To
		ends[s.Lane], slot[i] = rows, k
	}
	n := map[string]int{}
	for l, rows := range ends {
		n[l] = len(rows)
	}
	return slot, n
}

// swatch is a legend thumbnail: a filled square of one colour.
type swatch color.RGBA

// Thumbnail fills the legend's box.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.RGBA(s), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}
